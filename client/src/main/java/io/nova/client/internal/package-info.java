/**
 * The SDK's machinery: channels and failover, the per-call attempt/retry loop, status-to-exception
 * mapping and proto conversion. Public only so the API package can reach it; not part of the API and
 * free to change.
 */
package io.nova.client.internal;
