// bench/bindings' Java lane, compiled and run by bench/bindings_lanes/java:
// bindings_bench.c's `read` and `calls` through the Java binding
// (bindings/java). Prints the C anchor's fields, timing the same span:
//   read ROOT LOCATION_FILE BUF   one verified full read through a Reader
//                                 (InputStream.read into a BUF-byte array):
//                                 "seconds=S bytes=B verified=1"
//   calls ROOT LOCATION_FILE N    N reads of CancelToken.isCancelled():
//                                 "seconds=S calls=N"
import java.nio.file.Files;
import java.nio.file.Path;
import org.lake.CancelToken;
import org.lake.Db;
import org.lake.Location;
import org.lake.Reader;

final class BindingsLaneJava {
    private BindingsLaneJava() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !(args[0].equals("read") || args[0].equals("calls"))) {
            System.err.println("usage: read|calls ROOT LOCATION_FILE BUF|N");
            System.exit(2);
        }
        long count = Long.parseLong(args[3]);
        try (Db db = Db.open(Path.of(args[1]));
             Location location = Location.fromJson(Files.readString(Path.of(args[2])).trim())) {
            if (args[0].equals("read")) {
                read(db, location, (int) count);
            } else {
                calls(count);
            }
        }
    }

    private static void read(Db db, Location location, int bufBytes) throws Exception {
        byte[] buffer = new byte[bufBytes];
        long total = 0;
        boolean verified;
        long began = System.nanoTime();
        try (Reader reader = db.stage().open(location)) {
            for (int n; (n = reader.read(buffer)) >= 0; ) {
                total += n;
            }
            verified = reader.verified();
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        if (!verified || total != location.sizeBytes()) {
            System.err.println("java lane: read " + total + " bytes, verified=" + verified);
            System.exit(1);
        }
        System.out.printf("seconds=%.6f bytes=%d verified=1%n", seconds, total);
    }

    private static void calls(long n) throws Exception {
        long sink = 0;
        try (CancelToken token = new CancelToken()) {
            long began = System.nanoTime();
            for (long i = 0; i < n; i++) {
                sink += token.isCancelled() ? 1 : 0;
            }
            double seconds = (System.nanoTime() - began) / 1e9;
            if (sink != 0) {
                System.err.println("java lane: a fresh token reads cancelled");
                System.exit(1);
            }
            System.out.printf("seconds=%.6f calls=%d%n", seconds, n);
        }
    }
}
