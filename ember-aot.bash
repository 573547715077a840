# The JVM's ahead-of-time cache for ./ember (sourced by it; the tests source it too).
#
# JDK 25's AOT cache (JEP 483, 514, 515) holds the classes a training run loaded and linked, its
# lambda forms and its method profiles; a JVM started with -XX:AOTCache=<file> maps them instead of
# reading, verifying and profiling them again. ./ember builds one on first use for each classpath it
# starts (the CLI's, the benchmark jar's), in a folder under that module's target/, by running
# Ember's training workload (dev.ember.startup.AotTraining) once; later starts reuse it. A cache is
# named by a key of the JDK, the JVM flags and every jar's name, size and modification time, so a
# rebuilt jar (or another JDK) gets a new cache and the old ones are deleted. When a cache cannot be
# built (an older JDK, a read-only checkout, a failed training run) ./ember says so once per build
# and starts the JVM without one. EMBER_AOT=0 turns it off.
#
# Needs: java (JDK 25) on PATH, and the array JVM_FLAGS.

# The training workload's main class; the tests give their own.
: "${EMBER_AOT_TRAINING:=dev.ember.startup.AotTraining}"

# aot_classpath_jars CLASSPATH: each jar of a classpath (a trailing /* is every jar in that folder,
# as java expands it), one a line; fails on an entry that is not a jar file, since the AOT cache
# takes jars only.
aot_classpath_jars() {
  local entry f entries
  IFS=':' read -r -a entries <<< "$1"   # split without globbing: a trailing * is expanded below, as java does
  for entry in "${entries[@]}"; do
    if [[ "$entry" == */\* ]]; then
      for f in "${entry%/\*}"/*.jar; do
        if [[ -f "$f" ]]; then echo "$f"; fi
      done
    elif [[ -f "$entry" ]]; then
      echo "$entry"
    else
      return 1
    fi
  done
  return 0
}

# aot_key CLASSPATH: a hash of what decides whether a cache still fits: the JDK (its path and its
# modules image), the JVM flags, and every jar's path, size and modification time.
aot_key() {
  local jars java_home
  jars="$(aot_classpath_jars "$1")" || return 1
  java_home="$(dirname "$(dirname "$(command -v java)")")"
  {
    echo "$java_home"
    stat -c '%n %s %Y' "$java_home/lib/modules" 2>/dev/null
    printf '%s\n' "${JVM_FLAGS[@]}"
    if [[ -n "$jars" ]]; then printf '%s\n' "$jars" | sort | xargs -d '\n' stat -L -c '%n %s %Y'; fi
  } | sha256sum | cut -c1-16
}

# aot_cache_flags DIR NAME CLASSPATH: prints the flag that starts the JVM from the AOT cache for
# this classpath (-XX:AOTCache=DIR/NAME-<key>.aot), building that cache first when there is none.
# Prints nothing when the cache is off or cannot be built; then it has said why on stderr (once per
# build: a marker file keeps a failed build from being retried until the jars change).
aot_cache_flags() {
  local dir="$1" name="$2" cp="$3"
  [[ "${EMBER_AOT:-1}" == 0 ]] && return 0
  local key
  if ! key="$(aot_key "$cp")"; then
    echo "ember: no AOT cache for a classpath that is not all jars ($cp); starting without one" >&2
    return 0
  fi
  local cache="$dir/$name-$key.aot" failed="$dir/$name-$key.failed" log="$dir/$name-$key.log"
  if [[ -f "$cache" ]]; then
    echo "-XX:AOTCache=$cache"
    return 0
  fi
  [[ -f "$failed" ]] && return 0
  if ! mkdir -p "$dir" 2>/dev/null || [[ ! -w "$dir" ]]; then
    echo "ember: cannot write $dir, so no AOT cache: the JVM starts without one (slower start-up)" >&2
    return 0
  fi
  # Caches of other jars or another JDK: never used again.
  rm -f "$dir/$name"-*.aot "$dir/$name"-*.failed "$dir/$name"-*.log
  echo "ember: building the JVM's AOT cache for faster start-up (once per build, 10-20 s; EMBER_AOT=0 skips it) ..." >&2
  local tmp="$dir/$name-$key.$$.tmp"
  # The training run writes the cache when it exits; then a start with -XX:AOTMode=on, which fails
  # instead of falling back, checks that this JVM accepts it with these flags and jars.
  if java "${JVM_FLAGS[@]}" -XX:AOTCacheOutput="$tmp" -cp "$cp" "$EMBER_AOT_TRAINING" >"$log" 2>&1 \
      && [[ -s "$tmp" ]] \
      && java "${JVM_FLAGS[@]}" -XX:AOTMode=on -XX:AOTCache="$tmp" -cp "$cp" -version >>"$log" 2>&1 \
      && mv -f "$tmp" "$cache"; then
    echo "-XX:AOTCache=$cache"
  else
    rm -f "$tmp" "$tmp.config"
    touch "$failed"
    echo "ember: WARNING: could not build the JVM's AOT cache (see $log); starting without it (slower start-up)" >&2
  fi
  return 0
}
