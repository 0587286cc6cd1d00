/**
 * Access tokens at the gateway (ADR 0019): the bearer format and its hashing, token scopes, verification
 * against the meta group with a bounded cache, the gRPC interceptor and HTTP filter that enforce them,
 * token administration and the bootstrap admin token. Fencing tokens are a different thing (concurrency
 * control, checked at the stream's admission) and are not handled here.
 */
package io.nova.gateway.auth;
