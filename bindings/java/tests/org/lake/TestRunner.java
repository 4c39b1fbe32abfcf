package org.lake;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The binding's test runner: runs every public no-argument method of the
 * given test classes whose name starts with a scenario ID of
 * bindings/CONFORMANCE.md ("S001_…") or with "test_", each on a new
 * instance, calling setUp()/tearDown() around it when the class has them.
 * Prints one line per case (PASS, FAIL with the failure, or SKIP with the
 * reason) and, last, "N passed, M failed" (a skip counts as neither); exits
 * 1 on any failure.
 *
 *   java org.lake.TestRunner org.lake.SliceTest org.lake.ErrorTest …
 */
public final class TestRunner {
    /** Thrown by a case that cannot run here (e.g. a tool that is not installed). */
    public static final class Skip extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Skip(String reason) {
            super(reason);
        }
    }

    private TestRunner() {}

    static boolean isCase(Method method) {
        return Modifier.isPublic(method.getModifiers()) && method.getParameterCount() == 0
            && (method.getName().matches("[A-Z]\\d{3}_.*") || method.getName().startsWith("test_"));
    }

    public static void main(String[] args) throws Exception {
        String only = System.getProperty("lake.test.only", "");
        int passed = 0;
        int failed = 0;
        for (String className : args) {
            Class<?> type = Class.forName(className);
            List<Method> cases = new ArrayList<>();
            for (Method method : type.getMethods()) {
                if (isCase(method) && (only.isEmpty() || method.getName().contains(only))) {
                    cases.add(method);
                }
            }
            cases.sort(Comparator.comparing(Method::getName));
            for (Method method : cases) {
                String name = type.getSimpleName() + "." + method.getName();
                long started = System.nanoTime();
                Throwable failure = run(type, method);
                long ms = (System.nanoTime() - started) / 1_000_000;
                if (failure == null) {
                    passed++;
                    System.out.println("PASS " + name + " (" + ms + " ms)");
                } else if (failure instanceof Skip) {
                    System.out.println("SKIP " + name + ": " + failure.getMessage());
                } else {
                    failed++;
                    System.out.println("FAIL " + name + " (" + ms + " ms): " + failure);
                    StackTraceElement[] trace = failure.getStackTrace();
                    for (StackTraceElement element : Arrays.copyOf(trace, Math.min(trace.length, 8))) {
                        System.out.println("    at " + element);
                    }
                    for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
                        System.out.println("    caused by " + cause);
                    }
                }
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    private static Throwable run(Class<?> type, Method method) {
        Object instance;
        try {
            instance = type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            return e;
        }
        Throwable failure = null;
        try {
            call(type, instance, "setUp");
            method.invoke(instance);
        } catch (InvocationTargetException e) {
            failure = e.getCause();
        } catch (Throwable e) {
            failure = e;
        }
        try {
            call(type, instance, "tearDown");
        } catch (InvocationTargetException e) {
            if (failure == null) {
                failure = e.getCause();
            }
        } catch (Throwable e) {
            if (failure == null) {
                failure = e;
            }
        }
        return failure;
    }

    private static void call(Class<?> type, Object instance, String name) throws Exception {
        Method method;
        try {
            method = type.getMethod(name);
        } catch (NoSuchMethodException e) {
            return;
        }
        method.invoke(instance);
    }
}
