package io.nova.client;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One record header: an opaque name/value pair of bytes.
 *
 * <p>Both arrays are copied on construction and on every access, so a header is immutable and
 * thread-safe. Equality compares contents.
 *
 * @param name the header name; not null (may be empty)
 * @param value the header value; not null (may be empty)
 */
public record Header(byte[] name, byte[] value) {

    /** Copies both arrays; throws {@link NullPointerException} if either is null. */
    public Header {
        name = Objects.requireNonNull(name, "name").clone();
        value = Objects.requireNonNull(value, "value").clone();
    }

    /** A copy of the name bytes. */
    @Override
    public byte[] name() {
        return name.clone();
    }

    /** A copy of the value bytes. */
    @Override
    public byte[] value() {
        return value.clone();
    }

    /** The lengths of every name and value in {@code headers}, summed, without copying them. */
    static long nameAndValueBytes(List<Header> headers) {
        long bytes = 0;
        for (Header h : headers) {
            bytes += h.name.length + h.value.length;
        }
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Header h && Arrays.equals(name, h.name) && Arrays.equals(value, h.value);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(name) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Header[name=" + name.length + " bytes, value=" + value.length + " bytes]";
    }
}
