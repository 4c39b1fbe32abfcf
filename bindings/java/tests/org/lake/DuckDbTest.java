package org.lake;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

/**
 * A query result's Arrow C stream scanned by DuckDB's C library
 * (CONFORMANCE.md, S-013). The binding's Arrow export is the C data
 * interface itself: {@link QueryResult#exportTo} moves the stream into an
 * ArrowArrayStream the consumer owns. Needs $LAKE_DUCKDB_LIB
 * (scripts/fetch-duckdb); skipped without it unless LAKE_REQUIRE_DUCKDB=1.
 */
public class DuckDbTest extends Scratch {
    /** The part of DuckDB's C API (duckdb.h, 1.x) the test calls. */
    public interface DuckDb extends Library {
        int duckdb_open(String path, PointerByReference database);
        void duckdb_close(PointerByReference database);
        int duckdb_connect(Pointer database, PointerByReference connection);
        void duckdb_disconnect(PointerByReference connection);
        int duckdb_query(Pointer connection, String sql, Pointer result);
        void duckdb_destroy_result(Pointer result);
        String duckdb_result_error(Pointer result);
        long duckdb_row_count(Pointer result);
        Pointer duckdb_value_varchar(Pointer result, long column, long row);
        void duckdb_free(Pointer text);
        int duckdb_arrow_scan(Pointer connection, String table, Pointer stream);
    }

    private static String one(DuckDb duck, Pointer connection, String sql) {
        Memory result = new Memory(48);
        result.clear();
        try {
            if (duck.duckdb_query(connection, sql, result) != 0) {
                throw new AssertionError(duck.duckdb_result_error(result));
            }
            if (duck.duckdb_row_count(result) != 1) {
                return null;
            }
            Pointer value = duck.duckdb_value_varchar(result, 0, 0);
            if (value == null) {
                return null;
            }
            String text = value.getString(0, "UTF-8");
            duck.duckdb_free(value);
            return text;
        } finally {
            duck.duckdb_destroy_result(result);
        }
    }

    public void S013_duckdb_scans_the_exported_arrow_stream() throws Exception {
        String path = System.getenv("LAKE_DUCKDB_LIB");
        if (path == null || path.isEmpty()) {
            if ("1".equals(System.getenv("LAKE_REQUIRE_DUCKDB"))) {
                throw new AssertionError("LAKE_REQUIRE_DUCKDB=1 and LAKE_DUCKDB_LIB is not set");
            }
            throw new TestRunner.Skip("LAKE_DUCKDB_LIB is not set (scripts/fetch-duckdb)");
        }
        Db db = clipsRoot();
        db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "b", episode);
        Memory stream = new Memory(QueryResult.STREAM_SIZE);
        QueryResult result = db.query("SELECT name, video FROM media.clips");
        result.exportTo(stream);
        check(result.isClosed(), "the result is open after the export");
        DuckDb duck = Native.load(path, DuckDb.class);
        PointerByReference database = new PointerByReference();
        PointerByReference connection = new PointerByReference();
        equal(0, duck.duckdb_open(null, database), "duckdb_open");
        equal(0, duck.duckdb_connect(database.getValue(), connection), "duckdb_connect");
        try {
            equal(0, duck.duckdb_arrow_scan(connection.getValue(), "clips_stream", stream), "duckdb_arrow_scan");
            // A stream is read once: copy it into a table.
            one(duck, connection.getValue(), "CREATE TABLE clips AS SELECT * FROM clips_stream");
            equal("2", one(duck, connection.getValue(), "SELECT count(*) FROM clips"), "count(*)");
            equal("a,b", one(duck, connection.getValue(), "SELECT string_agg(name, ',' ORDER BY name) FROM clips"),
                  "string_agg");
            equal(String.valueOf(2 * OBJECT_SIZE), one(duck, connection.getValue(),
                  "SELECT sum(video.size_bytes) FROM clips"), "sum of sizes");
        } finally {
            duck.duckdb_disconnect(connection);
            duck.duckdb_close(database);
            Pointer release = stream.getPointer(24);
            if (release != null) {
                com.sun.jna.Function.getFunction(release).invokeVoid(new Object[] {stream});
            }
        }
    }
}
