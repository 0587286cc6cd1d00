package io.nova.cli.commands;

import io.nova.client.AppendAck;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reports {@code nova append}'s acks on stderr as they arrive, not when the input ends: a thread of its
 * own takes each append's outcome in input order and hands it to the {@link AppendSummary}, which
 * prints a range once no further ack follows within {@value #QUIET_MS} ms (acks of one batch arrive
 * together, so they make one line). A CLI killed mid-way thus leaves a true record of what landed.
 *
 * <p>Thread-safe: {@link #add} and {@link #finish} are called by the command's thread; the summary is
 * touched only by the reporter's thread until {@link #finish} returns.
 */
final class AckReporter {

  /** How long the reporter waits for the next ack before printing what it has merged, in ms. */
  static final long QUIET_MS = 20;
  /**
   * Outcomes waiting for the reporter at most. The producer bounds what is in flight, but acks that
   * arrived are only freed here: when stderr blocks (a paused terminal, an unread pipe), {@link #add}
   * blocks too instead of filling the heap.
   */
  static final int QUEUED_MAX = 65_536;

  /** One append, the input line it came from and its record's metered bytes. */
  record Pending(long lineNumber, long bytes, CompletableFuture<AppendAck> ack) {
  }

  private static final Pending END = new Pending(-1, 0, CompletableFuture.completedFuture(null));

  private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>(QUEUED_MAX);
  private final AppendSummary summary;
  private final Thread thread;

  AckReporter(AppendSummary summary) {
    this.summary = summary;
    this.thread = new Thread(this::run, "nova-append-acks");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Queues an append's outcome, with its record's metered bytes (for the progress line); blocks while
   * {@link #QUEUED_MAX} are waiting.
   */
  void add(long lineNumber, long bytes, CompletableFuture<AppendAck> ack) throws InterruptedException {
    queue.put(new Pending(lineNumber, bytes, ack));
  }

  /**
   * Waits until every queued outcome is reported and the last range printed. Call it once every
   * queued future is complete (the producer is flushed or closed): it waits for each of them.
   */
  void finish() throws InterruptedException {
    queue.put(END);
    thread.join();
  }

  private void run() {
    try {
      for (Pending p = next(); p != END; p = next()) {
        report(p);
      }
      summary.printRange();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The next queued outcome; when none is queued, what was merged is all that arrived: print it. */
  private Pending next() throws InterruptedException {
    Pending p = queue.poll();
    if (p == null) {
      summary.printRange();
      p = queue.take();
    }
    return p;
  }

  private void report(Pending p) throws InterruptedException {
    if (!p.ack().isDone()) {
      try {
        p.ack().get(QUIET_MS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        summary.printRange(); // the acks so far arrived a while ago; this one is still in flight
      } catch (ExecutionException e) {
        // Reported below.
      }
    }
    try {
      summary.acked(p.ack().get(), p.bytes());
    } catch (ExecutionException e) {
      summary.failed(p.lineNumber(), e.getCause());
    }
  }
}
