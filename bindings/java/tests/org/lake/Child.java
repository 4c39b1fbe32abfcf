package org.lake;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the tests run in a separate JVM (Scratch.runChild), one mode per
 * scenario that needs a fresh process:
 *   abi                 load the library: prints "refused: …" and "handles: N"
 *   insert ROOT         INSERT a row into media.clips (E-004, E-005): prints
 *                       "error CLASS RETRYABLE PENDING" or "inserted"
 *   close-and-wait ROOT open ROOT, create a table, close ROOT, print "closed PID",
 *                       then wait for stdin to close (H-006, run with Epsilon GC)
 *   writer ROOT         open ROOT, busy timeout 0, create a table (H-006): prints
 *                       "PID <writer.lock contents>"
 */
public final class Child {
    private Child() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "abi":
                try {
                    Location.of("file:///x", "a/b", 1, "0".repeat(64)).close();
                    System.out.println("loaded");
                } catch (AbiVersionException e) {
                    System.out.println("refused: " + e.getMessage());
                    System.out.println("handles: " + Lake.openHandles());
                }
                break;
            case "insert":
                try (Db db = Db.open(Path.of(args[1]))) {
                    db.insert("INSERT INTO media.clips (name, video) VALUES (?, ?)", "c", null);
                    System.out.println("inserted");
                } catch (LakeException e) {
                    System.out.println("error " + e.getClass().getSimpleName() + " " + e.retryable() + " "
                                       + e.pendingOperationId());
                }
                break;
            case "close-and-wait":
                try (Db db = Db.open(Path.of(args[1]))) {
                    db.createTable("media.first", List.of("name:utf8"));
                }
                System.out.println("closed " + ProcessHandle.current().pid());
                System.out.flush();
                System.in.read();  // alive, its collector never run, until the test closes stdin
                break;
            case "writer":
                try (Db db = Db.open(Path.of(args[1]))) {
                    db.setBusyTimeout(0);
                    db.createTable("media.second", List.of("name:utf8"));
                    System.out.println(ProcessHandle.current().pid() + " "
                                       + Files.readString(Path.of(args[1], "writer.lock")).trim());
                }
                break;
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }
}
