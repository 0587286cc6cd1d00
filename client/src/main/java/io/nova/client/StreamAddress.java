package io.nova.client;

import java.util.Objects;

/**
 * The address of one stream: a basin name and a stream name, written {@code nova://BASIN/STREAM}.
 *
 * <p>An address checks only its shape (both names non-empty, no whitespace, the basin without
 * {@code /}). The name rules ({@code io.nova.protocol.names.Names}) are applied by every
 * {@code NovaClient} call before anything is sent, with the {@code InvalidArgumentException} the cluster
 * would answer.
 * Immutable and thread-safe.
 *
 * @param basin the basin name; non-empty, no {@code /}, no whitespace
 * @param stream the stream name; non-empty, no whitespace (it may contain {@code /})
 */
public record StreamAddress(String basin, String stream) {

    /** The URI scheme prefix, {@value}. */
    public static final String SCHEME_PREFIX = "nova://";

    /** Validates both names; throws {@link IllegalArgumentException} naming the bad one. */
    public StreamAddress {
        checkBasinName(basin);
        checkName("stream", stream);
    }

    /**
     * Parses {@code nova://BASIN/STREAM}.
     *
     * @throws IllegalArgumentException if {@code uri} is null, lacks the scheme, the basin or the stream
     */
    public static StreamAddress parse(String uri) {
        if (uri == null || !uri.startsWith(SCHEME_PREFIX)) {
            throw new IllegalArgumentException(
                    "stream URI must look like nova://BASIN/STREAM, got: " + quote(uri));
        }
        String rest = uri.substring(SCHEME_PREFIX.length());
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) {
            throw new IllegalArgumentException(
                    "stream URI must name a basin and a stream (nova://BASIN/STREAM), got: " + quote(uri));
        }
        try {
            return new StreamAddress(rest.substring(0, slash), rest.substring(slash + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad stream URI " + quote(uri) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses a basin given as {@code nova://BASIN} (a trailing {@code /} is tolerated) or as a bare
     * {@code BASIN}.
     *
     * @throws IllegalArgumentException if the basin name is missing or malformed
     */
    public static String parseBasin(String uriOrName) {
        if (uriOrName == null) {
            throw new IllegalArgumentException("basin must look like nova://BASIN or BASIN, got: null");
        }
        String name = uriOrName;
        if (name.startsWith(SCHEME_PREFIX)) {
            name = name.substring(SCHEME_PREFIX.length());
            if (name.endsWith("/")) {
                name = name.substring(0, name.length() - 1);
            }
        }
        try {
            checkBasinName(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad basin " + quote(uriOrName)
                    + " (expected nova://BASIN or BASIN): " + e.getMessage(), e);
        }
        return name;
    }

    /** The URI form, {@code nova://BASIN/STREAM}; {@link #parse} reads it back. */
    @Override
    public String toString() {
        return SCHEME_PREFIX + basin + "/" + stream;
    }

    static void checkBasinName(String basin) {
        checkName("basin", basin);
        if (basin.indexOf('/') >= 0) {
            throw new IllegalArgumentException("basin must not contain '/', got: " + quote(basin));
        }
    }

    static void checkName(String field, String value) {
        Objects.requireNonNull(value, field);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(field + " must not be empty");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isWhitespace(value.charAt(i)) || Character.isISOControl(value.charAt(i))) {
                throw new IllegalArgumentException(
                        field + " must not contain whitespace or control characters, got: " + quote(value));
            }
        }
    }

    private static String quote(String s) {
        return s == null ? "null" : "\"" + s + "\"";
    }
}
