# The JVM's class data archive for ./ember (sourced by it; the tests source it too).
#
# A class data archive (CDS, -XX:SharedArchiveFile) holds the classes a training run loaded, parsed,
# verified and linked, the lambda classes among them; a JVM started with it maps them instead of
# reading and spinning them again. ./ember builds one on first use for each classpath it starts (the
# CLI's, the benchmark jar's), in a folder under that module's target/, by running Ember's training
# workload (dev.ember.startup.StartupTraining) once with -XX:DumpLoadedClassList and dumping the
# classes it listed (-Xshare:dump); later starts reuse it.
#
# Why not JDK 25's AOT cache (-XX:AOTCache, JEP 483/514/515), which also stores method profiles: with
# an incubator module in the boot layer (--add-modules jdk.incubator.vector, which Ember's kernels
# need) the AOT cache cannot store the module graph, and without it it stores no lambda classes.
# Ember's op table and kernels define about a thousand of them at start-up. Measured on the MLP
# (docs/benchmarks.md, "Start-up: a class data archive instead of the AOT cache"): building the graph
# took 154-295 ms from the AOT cache and 84-107 ms from this archive, and the first compiled result
# came sooner in every run.
#
# An archive is named by a key of the JDK, the JVM flags and every jar's name, size and modification
# time, so a rebuilt jar (or another JDK) gets a new archive and the old ones are deleted. When an
# archive cannot be built (an older JDK, a read-only checkout, a failed training run) ./ember says so
# once per build and starts the JVM without one. EMBER_CDS=0 turns it off.
#
# Needs: java (JDK 25) on PATH, and the array JVM_FLAGS.

# The training workload's main class; the tests give their own.
: "${EMBER_CDS_TRAINING:=dev.ember.startup.StartupTraining}"

# cds_classpath_jars CLASSPATH: each jar of a classpath (a trailing /* is every jar in that folder,
# as java expands it), one a line; fails on an entry that is not a jar file, since an archive
# takes jars only.
cds_classpath_jars() {
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

# cds_key CLASSPATH: a hash of what decides whether an archive still fits: the JDK (its path and its
# modules image), the JVM flags, and every jar's path, size and modification time.
cds_key() {
  local jars java_home
  jars="$(cds_classpath_jars "$1")" || return 1
  java_home="$(dirname "$(dirname "$(command -v java)")")"
  {
    echo "$java_home"
    stat -c '%n %s %Y' "$java_home/lib/modules" 2>/dev/null
    printf '%s\n' "${JVM_FLAGS[@]}"
    if [[ -n "$jars" ]]; then printf '%s\n' "$jars" | sort | xargs -d '\n' stat -L -c '%n %s %Y'; fi
  } | sha256sum | cut -c1-16
}

# class_archive_flags DIR NAME CLASSPATH: prints the flag that starts the JVM from the class data
# archive for this classpath (-XX:SharedArchiveFile=DIR/NAME-<key>.jsa), building it first when there
# is none. Prints nothing when the archive is off or cannot be built; then it has said why on stderr
# (once per build: a marker file keeps a failed build from being retried until the jars change).
class_archive_flags() {
  local dir="$1" name="$2" cp="$3"
  [[ "${EMBER_CDS:-1}" == 0 ]] && return 0
  local key
  if ! key="$(cds_key "$cp")"; then
    echo "ember: no class data archive for a classpath that is not all jars ($cp); starting without one" >&2
    return 0
  fi
  local archive="$dir/$name-$key.jsa" failed="$dir/$name-$key.failed" log="$dir/$name-$key.log"
  if [[ -f "$archive" ]]; then
    echo "-XX:SharedArchiveFile=$archive"
    return 0
  fi
  [[ -f "$failed" ]] && return 0
  if ! mkdir -p "$dir" 2>/dev/null || [[ ! -w "$dir" ]]; then
    echo "ember: cannot write $dir, so no class data archive: the JVM starts without one (slower start-up)" >&2
    return 0
  fi
  # Archives of other jars or another JDK: never used again.
  rm -f "$dir/$name"-*.jsa "$dir/$name"-*.failed "$dir/$name"-*.log "$dir/$name"-*.classlist
  echo "ember: building the JVM's class data archive for faster start-up (once per build, 10-20 s; EMBER_CDS=0 skips it) ..." >&2
  local tmp="$dir/$name-$key.$$.tmp" list="$dir/$name-$key.$$.classlist"
  # The training run lists the classes it loaded (lambda classes included) when it exits; the dump
  # archives them; then a start with -Xshare:on, which fails instead of falling back, checks that
  # this JVM accepts the archive with these flags and jars.
  if java "${JVM_FLAGS[@]}" -XX:DumpLoadedClassList="$list" -cp "$cp" "$EMBER_CDS_TRAINING" >"$log" 2>&1 \
      && [[ -s "$list" ]] \
      && java "${JVM_FLAGS[@]}" -Xshare:dump -XX:SharedClassListFile="$list" -XX:SharedArchiveFile="$tmp" -cp "$cp" >>"$log" 2>&1 \
      && [[ -s "$tmp" ]] \
      && java "${JVM_FLAGS[@]}" -Xshare:on -XX:SharedArchiveFile="$tmp" -cp "$cp" -version >>"$log" 2>&1 \
      && mv -f "$tmp" "$archive"; then
    rm -f "$list"
    echo "-XX:SharedArchiveFile=$archive"
  else
    rm -f "$tmp" "$list"
    touch "$failed"
    echo "ember: WARNING: could not build the JVM's class data archive (see $log); starting without it (slower start-up)" >&2
  fi
  return 0
}
