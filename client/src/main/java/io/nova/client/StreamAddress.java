package io.nova.client;

import io.nova.protocol.errors.Quoting;
import io.nova.protocol.names.Names;
import java.util.Objects;

/**
 * The address of one stream: a basin name and a stream name, written {@code nova://BASIN/STREAM}.
 *
 * <p>The constructor checks only the shape (both names non-empty, no whitespace, the basin without
 * {@code /}). The name rules ({@code io.nova.protocol.names.Names}) are applied by {@link #parse} and
 * {@link #parseBasin}, which read user text (an {@link IllegalArgumentException} naming the rule), and by
 * every {@code NovaClient} call before anything is sent, with the {@code InvalidArgumentException} the
 * cluster would answer. Immutable and thread-safe.
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
     * Parses {@code nova://BASIN/STREAM}. An error quotes {@code uri} once ({@code Quoting}: escaped,
     * shortened past 60 characters) and says which part breaks which rule, without quoting that part
     * again.
     *
     * @throws IllegalArgumentException if {@code uri} is null, lacks the scheme, the basin or the stream,
     *     or a name breaks its rule
     */
    public static StreamAddress parse(String uri) {
        if (uri == null || !uri.startsWith(SCHEME_PREFIX)) {
            throw new IllegalArgumentException(
                    "stream URI must look like nova://BASIN/STREAM, got: " + Quoting.quoted(uri));
        }
        String rest = uri.substring(SCHEME_PREFIX.length());
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) {
            throw new IllegalArgumentException(
                    "stream URI must name a basin and a stream (nova://BASIN/STREAM), got: " + Quoting.quoted(uri));
        }
        String basin = rest.substring(0, slash);
        String stream = rest.substring(slash + 1);
        Names.basinNameProblem(basin).ifPresent(problem -> {
            throw new IllegalArgumentException("bad stream URI " + Quoting.quoted(uri) + ": its basin name "
                    + problem + "; a basin name must be " + Names.BASIN_RULE);
        });
        Names.streamNameProblem(stream).ifPresent(problem -> {
            throw new IllegalArgumentException("bad stream URI " + Quoting.quoted(uri) + ": its stream name "
                    + problem + "; a stream name must be " + Names.STREAM_RULE);
        });
        return new StreamAddress(basin, stream);
    }

    /**
     * Parses a basin given as {@code nova://BASIN} (a trailing {@code /} is tolerated) or as a bare
     * {@code BASIN}. An error quotes {@code uriOrName} once, as {@link #parse} does.
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
        Names.basinNameProblem(name).ifPresent(problem -> {
            throw new IllegalArgumentException("bad basin " + Quoting.quoted(uriOrName) + " (expected nova://BASIN"
                    + " or BASIN): its name " + problem + "; a basin name must be "
                    + Names.BASIN_RULE);
        });
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
            throw new IllegalArgumentException("basin must not contain '/', got: " + Quoting.quoted(basin));
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
                        field + " must not contain whitespace or control characters, got: " + Quoting.quoted(value));
            }
        }
    }
}
