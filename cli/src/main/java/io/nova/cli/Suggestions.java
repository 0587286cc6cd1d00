package io.nova.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The known words (verbs, options) nearest to a mistyped one, for "did you mean" hints. Near means at
 * most 1 edit for words of up to 5 characters and 2 for longer ones, where an edit inserts, deletes or
 * replaces a character or swaps two neighbours ({@code apend}, {@code tial} and {@code fense} are one
 * edit from {@code append}, {@code tail} and {@code fence}), or that the typed word begins a known one
 * ({@code create} for {@code create-basin} and {@code create-stream}). Picocli's own suggestions are not
 * used: they offer {@code cluster} for {@code bogus} and nothing for {@code tial}. Stateless.
 */
final class Suggestions {

  /** Most words suggested at once. */
  static final int MAX = 3;

  private Suggestions() {}

  /** Up to {@value #MAX} of {@code known} nearest to {@code typed}, nearest first, then in their order. */
  static List<String> nearest(String typed, Collection<String> known) {
    int allowed = typed.length() <= 5 ? 1 : 2;
    List<String> near = new ArrayList<>();
    for (String word : known) {
      if (!word.equals(typed) && (distance(typed, word) <= allowed || (typed.length() >= 3 && word.startsWith(typed)))) {
        near.add(word);
      }
    }
    near.sort(Comparator.comparingInt(word -> distance(typed, word)));
    return near.subList(0, Math.min(MAX, near.size()));
  }

  /** The edits (insert, delete, replace, swap of neighbours) that turn {@code a} into {@code b}. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
