package org.lake;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The ABI (CONFORMANCE.md, A-001, A-002). */
public class AbiTest extends Scratch {
    private static final String STUB = "#include <stdint.h>\n"
        + "uint32_t lake_abi_version(void) { return %d; }\n"
        + "const char* lake_version_string(void) { return \"stub\"; }\n";

    public void A001_an_abi_version_mismatch_is_refused_at_load() throws Exception {
        equal(Lake.ABI_VERSION, Lake.lib().lake_abi_version(), "the real library's ABI");
        Path source = dir.resolve("stub.c");
        Files.writeString(source, String.format(STUB, Lake.ABI_VERSION + 1));
        Path stub = dir.resolve("liblake_stub.so");
        Process cc = new ProcessBuilder("cc", "-shared", "-fPIC", "-o", stub.toString(), source.toString())
            .inheritIO().start();
        equal(0, cc.waitFor(), "cc exit");
        // A fresh process: loading is what is refused, before any handle.
        ChildResult child = runChild(Map.of(), List.of("-Dlake.library=" + stub), "abi");
        equal(0, child.exitCode(), "child exit (" + child.stderr() + ")");
        check(child.stdout().contains("implements lake ABI " + (Lake.ABI_VERSION + 1)), "not refused: " + child.stdout());
        check(child.stdout().contains("handles: 0"), "handles exist: " + child.stdout());
    }

    public void A002_every_lake_api_function_is_declared() throws Exception {
        Path header = Path.of(System.getProperty("lake.source.root", "."), "include", "lake.h");
        String text = Files.readString(header).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("(?m)^\\s*#.*$", "");
        Set<String> inHeader = new TreeSet<>();
        Matcher m = Pattern.compile("LAKE_API\\b[^;(]*?\\b(lake_\\w+)\\s*\\(").matcher(text);
        while (m.find()) {
            inHeader.add(m.group(1));
        }
        Set<String> declared = new TreeSet<>();
        for (Method method : LakeNative.class.getDeclaredMethods()) {
            declared.add(method.getName());
        }
        check(inHeader.size() > 100, "found only " + inHeader.size() + " functions in lake.h");
        equal(inHeader, declared, "LakeNative's functions");
        com.sun.jna.NativeLibrary library = com.sun.jna.NativeLibrary.getInstance("lake");
        for (String name : declared) {
            check(library.getFunction(name) != null, name + " is not in the library");
        }
    }
}
