package org.lake;

/** Placeholder replaced below. */
public final class Child {
    private Child() {}

    public static void main(String[] args) {}
}
