package org.lake;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Integrity (CONFORMANCE.md, I-001 … I-004). */
public class IntegrityTest extends Scratch {
    private Db db;

    /** The root's object with one byte flipped in place (same size). */
    private Location tampered() throws Exception {
        db = clipsRoot();
        Location location = locationOf(db, "a");
        try (RandomAccessFile file = new RandomAccessFile(stored(location).toFile(), "rw")) {
            file.seek(OBJECT_SIZE / 2);
            int b = file.read();
            file.seek(OBJECT_SIZE / 2);
            file.write(b ^ 0xff);
        }
        return location;
    }

    public void I001_a_tampered_object_fails_at_the_end_of_a_full_read() throws Exception {
        Location location = tampered();
        long[] delivered = {0};
        try (Reader reader = db.stage().open(location)) {
            byte[] buffer = new byte[65536];
            IntegrityException e = raises(IntegrityException.class, () -> {
                while (true) {
                    int n = reader.read(buffer);
                    if (n < 0) {
                        throw new AssertionError("a tampered object reached a successful end");
                    }
                    delivered[0] += n;
                }
            });
            equal(IntegrityKind.DIGEST_MISMATCH, e.integrityKind(), "kind");
            check(!reader.verified(), "verified after the failure");
        }
        equal((long) OBJECT_SIZE, delivered[0], "bytes delivered before the failure");
    }

    public void I002_a_truncated_object_is_size_short_with_expected_and_observed() throws Exception {
        db = clipsRoot();
        Location location = locationOf(db, "a");
        try (RandomAccessFile file = new RandomAccessFile(stored(location).toFile(), "rw")) {
            file.setLength(OBJECT_SIZE - 7);
        }
        try (Reader reader = db.stage().open(location)) {
            IntegrityException e = raises(IntegrityException.class, reader::readAllBytes);
            equal(IntegrityKind.SIZE_SHORT, e.integrityKind(), "kind");
            equal((long) OBJECT_SIZE, e.expected(), "expected");
            equal((long) OBJECT_SIZE - 7, e.observed(), "observed");
        }
    }

    public void I003_an_early_close_claims_nothing() throws Exception {
        Location location = tampered();
        Reader reader = db.stage().open(location);
        equal(1000, reader.readNBytes(1000).length, "first bytes");
        check(!reader.verified(), "verified early");
        reader.close();
        check(reader.isClosed(), "not closed");
    }

    /** Where a fragment's bytes lie: a file, or a record's payload in a table log segment. */
    private record FragmentBytes(Path path, int offset, int size) {}

    /**
     * The table's fragments: every data/*.frag file, and every fragment record of its log. The
     * log's layout (engine/table/table_log_format.h): a 32-byte segment header, then records, each
     * a 32-byte header (magic "LKTR", the kind at byte 4 (2 is a fragment), the payload bytes as a
     * little-endian u64 at byte 16) and its payload.
     */
    private static List<FragmentBytes> fragmentsOf(Path tableDir) throws Exception {
        List<FragmentBytes> found = new ArrayList<>();
        for (Path file : filesIn(tableDir.resolve("data"), ".frag")) {
            found.add(new FragmentBytes(file, 0, (int) Files.size(file)));
        }
        for (Path segment : filesIn(tableDir.resolve("_log"), ".seg")) {
            byte[] data = Files.readAllBytes(segment);
            ByteBuffer le = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
            int at = 32;
            while (at + 32 <= data.length
                    && new String(data, at, 4, StandardCharsets.US_ASCII).equals("LKTR")) {
                int size = (int) le.getLong(at + 16);
                if (data[at + 4] == 2) found.add(new FragmentBytes(segment, at + 32, size));
                at += 32 + size;
            }
        }
        return found;
    }

    private static List<Path> filesIn(Path dir, String suffix) throws Exception {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }

    public void I004_a_query_over_a_damaged_fragment_is_an_integrity_error() throws Exception {
        db = clipsRoot();
        List<FragmentBytes> fragments = fragmentsOf(dir.resolve("root/tables/media/clips"));
        equal(1, fragments.size(), "fragments");
        FragmentBytes fragment = fragments.get(0);
        byte[] bytes = Files.readAllBytes(fragment.path());
        bytes[fragment.offset() + fragment.size() / 2] ^= (byte) 0xff;
        Files.write(fragment.path(), bytes);
        try (QueryResult result = db.query("SELECT name, video FROM media.clips")) {
            raises(IntegrityException.class, () -> {
                for (Batch batch = result.next(); batch != null; batch = result.next()) {
                    batch.close();
                }
            });
        }
    }
}
