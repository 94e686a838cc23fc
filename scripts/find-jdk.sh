# Sourced by ./mvnw (sh), ./cellar and .ci/run (bash), so POSIX sh: makes JAVA_HOME point at a JDK 25 or newer.
# Order: JAVA_HOME if it is new enough, then `java` on PATH, then the usual install places.
# A JDK's `release` file names its version (JAVA_VERSION="25.0.1"), so the check reads that and
# starts no JVM (each start costs 50-300 ms, and ./cellar runs this before every command); a JDK
# without one (some distributions' builds) is asked by starting its java.
_cellar_java_version() {
  if [ -f "$1/release" ]; then
    while IFS= read -r _cellar_line; do
      case "$_cellar_line" in
        JAVA_VERSION=*) _cellar_line=${_cellar_line#JAVA_VERSION=}; _cellar_line=${_cellar_line#\"}; echo "${_cellar_line%%[!0-9.]*}"; return 0 ;;
      esac
    done < "$1/release"
  fi
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
unset _cellar_jdk _cellar_line
