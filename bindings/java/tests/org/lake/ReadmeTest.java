package org.lake;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The README's vertical slice runs as pasted (the S scenarios in one piece). */
public class ReadmeTest extends Scratch {
    public void test_the_readme_slice_runs_as_pasted_in_a_directory_with_episode_mp4() throws Exception {
        Path readme = Path.of(System.getProperty("lake.source.root", "."), "bindings", "java", "README.md");
        Matcher m = Pattern.compile("(?s)```java\n(.*?)```").matcher(Files.readString(readme));
        check(m.find(), "no java block in the README");
        String snippet = m.group(1);
        check(snippet.split("\n").length <= 50, "the slice has " + snippet.split("\n").length + " lines");
        Files.writeString(dir.resolve("Slice.java"), snippet);
        ProcessBuilder builder = new ProcessBuilder(
            ProcessHandle.current().info().command().orElse("java"), "-XX:TieredStopAtLevel=1",
            "-cp", System.getProperty("java.class.path"),
            "-Djna.library.path=" + System.getProperty("jna.library.path", ""), "Slice.java");
        builder.directory(dir.toFile());
        builder.redirectErrorStream(true);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        check(process.waitFor(60, TimeUnit.SECONDS), "the slice timed out");
        equal(0, process.exitValue(), "exit code (" + output + ")");
        check(output.contains("[path, stream] file://") && output.contains("\ntrue\n") && output.contains("hello\n")
              && output.contains("completed p1") && output.contains("\"plan_id\""), "output: " + output);
        check(Files.isDirectory(dir.resolve("lake-data")), "no lake-data");
    }
}
