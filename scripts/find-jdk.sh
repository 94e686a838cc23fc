# Sourced by ./mvnw, ./cellar and .ci/run: makes JAVA_HOME point at a JDK 25 or newer.
# Order: JAVA_HOME if it is new enough, then `java` on PATH, then the usual install places.
_cellar_java_version() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -1
}
_cellar_ok() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  v=$(_cellar_java_version "$1")
  [ -n "$v" ] && [ "${v%%.*}" -ge 25 ] 2>/dev/null
}
_cellar_find_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && _cellar_ok "$JAVA_HOME"; then echo "$JAVA_HOME"; return 0; fi
  if command -v java >/dev/null 2>&1; then
    home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    if _cellar_ok "$home"; then echo "$home"; return 0; fi
  fi
  for home in /usr/lib/jvm/temurin-2[5-9]* /usr/lib/jvm/*-2[5-9]* /usr/lib/jvm/jdk-2[5-9]* \
              /usr/local/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
              "$HOME"/.jdks/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    if _cellar_ok "$home"; then echo "$home"; return 0; fi
  done
  return 1
}
if _cellar_jdk=$(_cellar_find_jdk); then
  export JAVA_HOME="$_cellar_jdk"
else
  echo "Cellar needs JDK 25 or newer and found none (looked at JAVA_HOME, java on PATH, /usr/lib/jvm, /opt, ~/.sdkman)." >&2
  echo "Install one (for example Temurin 25) and set JAVA_HOME to it." >&2
  exit 1
fi
unset _cellar_jdk
