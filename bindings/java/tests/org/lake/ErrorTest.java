package org.lake;

import java.io.ByteArrayInputStream;
import java.io.RandomAccessFile;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Errors (CONFORMANCE.md, E-001 … E-005). */
public class ErrorTest extends Scratch {
    public void E001_each_status_has_its_own_exception_type_sharing_one_base() {
        Set<Class<?>> types = new HashSet<>();
        for (Status status : Status.values()) {
            if (status == Status.OK) {
                continue;
            }
            LakeException e = LakeException.fromNative(status.code, null);
            check(e.getClass() != LakeException.class, "no own type for " + status);
            equal(status, e.status(), "status of " + e.getClass().getSimpleName());
            types.add(e.getClass());
        }
        equal(8, types.size(), "distinct exception types");
        check(LakeException.fromNative(99, null) instanceof InternalException, "an unknown code is not INTERNAL");
    }

    public void E002_an_error_carries_lakes_details() throws Exception {
        Db db = clipsRoot();
        Location location = locationOf(db, "a");
        try (RandomAccessFile file = new RandomAccessFile(stored(location).toFile(), "rw")) {
            file.setLength(1000);
        }
        IntegrityException e = raises(IntegrityException.class, () -> db.stage().cat(location));
        equal(Status.INTEGRITY, e.status(), "status");
        check(e.getMessage() != null && !e.getMessage().isEmpty(), "no message");
        equal(IntegrityKind.SIZE_SHORT, e.integrityKind(), "kind");
        equal((long) OBJECT_SIZE, e.expected(), "expected");
        equal(1000L, e.observed(), "observed");
        check(!e.retryable(), "retryable");
        equal(null, e.pendingOperationId(), "pending operation");
    }

    public void E003_real_calls_reach_java_as_their_types() throws Exception {
        Db db = openRoot();
        db.createTable("media.clips", List.of("name:utf8", "video:file"));
        InvalidArgumentException invalid = raises(InvalidArgumentException.class,
            () -> Location.fromJson("{\"uri\":\"file:///x\"}"));
        equal(IntegrityKind.INVALID_LOCATION, invalid.integrityKind(), "kind");
        raises(ConflictException.class, () -> db.createTable("media.clips", List.of("name:utf8")));
        raises(NotFoundException.class, () -> db.describeTable("media.nothing"));
        Stage stage = db.stage();
        List<Stage.Entry> listed = stage.list();
        try (CancelToken token = new CancelToken(); UploadOptions options = new UploadOptions().cancelToken(token)) {
            token.cancel();
            raises(CancelledException.class, () -> stage.put(episode, options));
        }
        equal(listed, stage.list(), "listing after a cancelled upload");
        Location location = later(stage.put(new ByteArrayInputStream(data), null));
        raises(UnsupportedException.class, () -> stage.presign(location, 60));
    }

    private String[] insertUnderFailpoint(String failpoint) throws Exception {
        clipsRoot().close();
        ChildResult child = runChild(Map.of("LAKE_FAILPOINTS", failpoint), List.of(),
                                     "insert", dir.resolve("root").toString());
        equal(0, child.exitCode(), "child exit (" + child.stderr() + ")");
        String[] lines = child.stdout().trim().split("\n");
        return lines[lines.length - 1].split(" ");
    }

    public void E004_a_transient_failure_is_retryable_without_pending_operation() throws Exception {
        String[] got = insertUnderFailpoint("table_append.fragment_written=error");
        equal("error LakeIOException true null", String.join(" ", got), "child's error");
    }

    public void E005_a_failure_after_the_commit_names_its_pending_operation() throws Exception {
        String[] got = insertUnderFailpoint("table_append.committed=error");
        equal("error LakeIOException false", got[0] + " " + got[1] + " " + got[2], "child's error");
        equal(36, got[3].length(), "pending operation id " + got[3]);
        try (Db db = Db.open(dir.resolve("root"))) {
            check(db.pendingAppends().contains("\"operation_id\":\"" + got[3] + "\""), "not pending: " + db.pendingAppends());
        }
    }
}
