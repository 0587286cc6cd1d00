package io.nova.client;

/**
 * A token just issued: its public part and its secret, the bearer value to present
 * ({@link NovaClient.Builder#accessToken}). The cluster keeps only a hash: this is the only copy.
 *
 * @param info the public part
 * @param secret the whole bearer token
 */
public record IssuedToken(TokenInfo info, String secret) {

    /** Never prints the secret. */
    @Override
    public String toString() {
        return "IssuedToken[info=" + info + "]";
    }
}
