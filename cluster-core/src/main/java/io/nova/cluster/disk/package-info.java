/**
 * A node's data volume running full (ADR 0025): the {@link io.nova.cluster.disk.DiskWatcher} samples the
 * volume's free space from a {@link io.nova.cluster.disk.FreeSpaceSource} and, below the node's reserve,
 * makes its leaders refuse writes that grow the log until space is back.
 */
package io.nova.cluster.disk;
