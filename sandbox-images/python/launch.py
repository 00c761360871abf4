# The sandbox's Python entry point for `execute`.
#
# It starts the interpreter first and only then blocks on stdin for the program, so a container
# running it can be started ahead of time (the warm pool) and a program sent to it later costs
# no interpreter start-up. Cold runs use the same file, so warm and cold behave identically:
# the program runs as __main__, its exit status and traceback are Python's own.
import sys

source = sys.stdin.buffer.read()
sys.stdin = open("/dev/null")
sys.argv = ["<program>"]
namespace = {"__name__": "__main__", "__file__": "<program>", "__builtins__": __builtins__}
exec(compile(source, "<program>", "exec"), namespace)
