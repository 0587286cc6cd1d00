package io.nova.cli.io;

import io.nova.protocol.limits.Limits;
import io.nova.client.AppendRecord;

/**
 * One record read from the user's input.
 *
 * @param lineNumber   the 1-based input line it came from, for error messages
 * @param record       what will be appended
 * @param meteredBytes {@link AppendRecord#meteredBytes()} of {@code record}, at most
 *                     {@link Limits#RECORD_METERED_BYTES_MAX}
 */
public record InputRecord(long lineNumber, AppendRecord record, long meteredBytes) {}
