package io.nova.node.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.nova.protocol.logging.LogContext;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code %novaGroup} in the server's logback pattern: the group a line is about. The MDC's
 * {@code group} when our code set it; else, for Ratis' own lines, the Ratis group id its thread name or
 * message carries ({@code n1@group-8ABF44E86514}), shown as the group's name when {@code nova server}
 * registered the names ({@link ServerLogging}); else {@code -} (a line about no group). Thread-safe.
 */
public final class GroupConverter extends ClassicConverter {

  /** Ratis prints a group id as "group-" and the last 12 hex digits of its UUID, upper case. */
  private static final Pattern RATIS_GROUP = Pattern.compile("group-[0-9A-F]{12}");

  @Override
  public String convert(ILoggingEvent event) {
    String group = event.getMDCPropertyMap().get(LogContext.GROUP);
    if (group != null) {
      return group;
    }
    String ratisId = find(event.getThreadName());
    if (ratisId == null) {
      ratisId = find(event.getFormattedMessage());
    }
    if (ratisId == null) {
      return "-";
    }
    Map<String, String> names = getContext() == null ? null : ServerLogging.groupNames(getContext());
    return names == null ? ratisId : names.getOrDefault(ratisId, ratisId);
  }

  private static String find(String text) {
    if (text == null) {
      return null;
    }
    Matcher m = RATIS_GROUP.matcher(text);
    return m.find() ? m.group() : null;
  }
}
