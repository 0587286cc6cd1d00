package io.nova.cli.io;

import io.nova.client.AppendRecord;

/**
 * One record read from the user's input.
 *
 * @param lineNumber   the 1-based input line it came from, for error messages
 * @param record       what will be appended
 * @param meteredBytes {@link Metering#meteredBytes(AppendRecord)} of {@code record}, at most
 *                     {@link Metering#RECORD_BYTES_MAX}
 */
public record InputRecord(long lineNumber, AppendRecord record, long meteredBytes) {}
