package dev.cellar.fory;

import java.util.List;

/** The value of the tests: a user of a social site, with the ids of their friends. */
public record User(String name, String email, int age, List<Long> friendIds) {
  static User ada() {
    return new User("Ada Lovelace", "ada@example.com", 36, List.of(2L, 3L, 5L, 8L));
  }
}
