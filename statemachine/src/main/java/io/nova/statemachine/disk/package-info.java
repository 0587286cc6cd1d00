/**
 * How a state machine learns that its node's data volume is short of space, so that its leader refuses
 * log-growing entries before they are appended ({@link io.nova.statemachine.disk.DiskGate}).
 */
package io.nova.statemachine.disk;
