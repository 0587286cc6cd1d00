package io.nova.client;

import io.nova.protocol.errors.Quoting;
import io.nova.protocol.names.Names;
import java.util.Objects;

/**
 * The address of one stream: a basin name and a stream name, written {@code nova://BASIN/STREAM}.
 *
 * <p>Both names follow the cluster's rules ({@code io.nova.protocol.names.Names}), checked here so a bad
 * name fails before any call: a basin is 1 to 48 characters of {@code [a-z0-9-]} starting and ending
 * with a letter or digit; a stream 1 to 255 characters of {@code [A-Za-z0-9._-]}, neither {@code .} nor
 * {@code ..}. Immutable and thread-safe.
 *
 * @param basin the basin name
 * @param stream the stream name
 */
public record StreamAddress(String basin, String stream) {

    /** The URI scheme prefix, {@value}. */
    public static final String SCHEME_PREFIX = "nova://";

    /** Validates both names; throws {@link IllegalArgumentException} naming the bad one and the rule. */
    public StreamAddress {
        checkBasinName(basin);
        checkStreamName(stream);
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
        Objects.requireNonNull(basin, "basin");
        Names.basinNameError(basin).ifPresent(error -> {
            throw new IllegalArgumentException(error.getMessage());
        });
    }

    static void checkStreamName(String stream) {
        Objects.requireNonNull(stream, "stream");
        Names.streamNameError(stream).ifPresent(error -> {
            throw new IllegalArgumentException(error.getMessage());
        });
    }
}
