# What the scripts of pipelines/ share; each sources it first and calls
#   co_build "$@"
# which answers -h/--help with the script's opening comment (its usage),
# takes the first argument as the build folder (absolute, or relative to the
# current folder; default: build/ at the top of the source tree), checks
# that the plugin is there and sets:
#   BUILD            the build folder, absolute
#   CO_RUN           examples/cudaoverlap-run of that build (runs a launch
#                    line and prints the passport and statistics readably)
#   GST_PLUGIN_PATH  BUILD/plugin first
#   GST_REGISTRY_1_0 BUILD/pipelines-registry.bin unless already set (a
#                    registry of its own for the build's plugin)
co_script=$0
co_name=$(basename "$0")
co_tree=$(cd "$(dirname "$0")/.." && pwd)

# The script's opening comment, without the "#!" line and the "# ".
co_usage () {
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' \
    "$co_script"
}

co_build () {
  for a in "$@"; do
    case $a in
      -h|--help) co_usage; exit 0 ;;
    esac
  done
  case ${1:-} in
    -*) echo "$co_name: unknown option $1 (--help for the usage)" >&2; exit 2 ;;
  esac
  BUILD=${1:-$co_tree/build}
  case $BUILD in
    /*) ;;
    *) BUILD=$PWD/$BUILD ;;
  esac
  if [ ! -f "$BUILD/plugin/libgstcudaoverlap.so" ]; then
    echo "$co_name: no plugin in $BUILD/plugin: build it first" \
      "(meson setup BUILD && ninja -C BUILD), or name the build folder" \
      "(--help for the usage)" >&2
    exit 2
  fi
  BUILD=$(cd "$BUILD" && pwd)
  CO_RUN=$BUILD/examples/cudaoverlap-run
  export GST_PLUGIN_PATH="$BUILD/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
  export GST_REGISTRY_1_0="${GST_REGISTRY_1_0:-$BUILD/pipelines-registry.bin}"
}

# co_need_run: exits with a message when CO_RUN is not built.
co_need_run () {
  if [ ! -x "$CO_RUN" ]; then
    echo "$co_name: $CO_RUN is missing: ninja -C $BUILD builds it" >&2
    exit 2
  fi
}
