package org.lake;

import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The binding on an S3 stage (beyond CONFORMANCE.md, whose scenarios need
 * no S3): the S3 options reach lake, and presigning works there. Runs when
 * the S3 test server's variables are set (`. STATE_DIR/env`, with
 * LAKE_S3_STATE_DIR), in a bucket of its own made and removed with
 * scripts/s3-test-server; skipped otherwise.
 */
public class S3Test extends Scratch {
    private String stateDir;
    private String bucket;

    private void server(String command) throws Exception {
        Path script = Path.of(System.getProperty("lake.source.root", "."), "scripts", "s3-test-server");
        Process process = new ProcessBuilder(script.toString(), command, stateDir, bucket)
            .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        check(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0,
              "s3-test-server " + command + " failed: " + output);
    }

    @Override
    public void setUp() throws java.io.IOException {
        super.setUp();
        stateDir = System.getenv("LAKE_S3_STATE_DIR");
        bucket = "lake-java-" + Long.toHexString(System.nanoTime());
    }

    public void test_an_s3_stage_puts_cats_reads_ranges_and_presigns() throws Exception {
        String endpoint = System.getenv("AWS_ENDPOINT_URL");
        if (endpoint == null || stateDir == null) {
            throw new TestRunner.Skip("no S3 test server (. STATE_DIR/env of scripts/s3-test-server)");
        }
        server("mb");
        try (StageOptions options = new StageOptions().s3("s3://" + bucket + "/java").s3Endpoint(endpoint)
                 .s3PathStyle(true).s3Concurrency(2);
             Stage stage = options.open();
             Location location = stage.put(new ByteArrayInputStream(data), null)) {
            equal("s3", stage.ioBackend(), "io backend");
            check(location.uri().startsWith("s3://" + bucket + "/java/"), "uri " + location.uri());
            equal(data, stage.cat(location), "cat");
            try (Reader reader = stage.openRange(location, 1000, 2000)) {
                equal(Arrays.copyOfRange(data, 1000, 2000), reader.readAllBytes(), "range");
            }
            String url = stage.presign(location, 60);
            check(url.startsWith(endpoint) && url.contains("X-Amz-Signature="), "presigned " + url);
            stage.delete(location);
        } finally {
            server("rb");
        }
    }
}
