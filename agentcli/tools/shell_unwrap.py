"""What a command runs besides itself, and which of its options make it unsafe to auto-approve.

Two tables keyed by command name: WRAPPERS return the inner commands a wrapper runs
(`sudo X`, `env A=1 X`, `xargs X`, `sh -c 'X'`, `find -exec X ;`, ...), and RISKY holds
checks that turn an allowed command into "ask" (`sed -i`, `find -delete`, `git -c`,
`rg --pre`, ...). A result item is ("argv", [...]), ("script", "...") or ("ask", reason).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from agentcli.tools.shell_sed import sed_risks

Item = tuple[str, object]
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash", "yash", "tcsh", "csh"})
# Builtins that change how later commands behave; never auto-approved, whatever the rules say.
_ENV_CHANGERS = frozenset({
    "export", "declare", "typeset", "readonly", "local", "alias", "unalias", "set", "unset", "shopt",
    "trap", "enable", "hash", "source", ".", "eval", "ulimit", "umask", "bind",
})


def basename(word: str) -> str:
    return os.path.basename(word) if "/" in word else word


def _skip_options(argv: list[str], i: int, with_arg: frozenset[str], short_with_arg: str = "") -> int:
    """Index of the first non-option word from i (after `--` if present)."""
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return i + 1
        if not a.startswith("-") or a == "-":
            return i
        if a in with_arg:
            i += 2
        elif a.startswith("--") or (len(a) > 2 and a[1] in short_with_arg):
            i += 1  # --opt=value, or -uVALUE
        else:
            i += 1
            if a[-1] in short_with_arg and len(a) > 1:
                i += 1  # bundle ending in an option that takes the next word
    return i


def _rest(argv: list[str], i: int) -> list[Item]:
    items: list[Item] = []
    while i < len(argv) and ASSIGNMENT.match(argv[i]):
        items.append(("ask", f"sets environment variables ({argv[i].split('=', 1)[0]})"))
        i += 1
    if i < len(argv):
        items.append(("argv", argv[i:]))
    return items


def _sudo(argv: list[str]) -> list[Item]:
    with_arg = frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-R", "-r", "-t", "-T", "-U", "--user", "--group",
                          "--host", "--prompt", "--close-from", "--chdir", "--chroot", "--role", "--type",
                          "--command-timeout", "--other-user"})
    i = _skip_options(argv, 1, with_arg, "ughpCDRrtTU")
    items = _rest(argv, i)
    return items if any(k == "argv" for k, _ in items) else items + [("ask", f"{argv[0]} without a command")]


def _env(argv: list[str]) -> list[Item]:
    items: list[Item] = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-u", "--unset", "-C", "--chdir"):
            i += 2
        elif a in ("-S", "--split-string") or a.startswith(("-S", "--split-string")):
            value = a.split("=", 1)[1] if "=" in a else a[2:] if a.startswith("-S") and len(a) > 2 else (
                argv[i + 1] if i + 1 < len(argv) else "")
            skip = 1 if ("=" in a or (a.startswith("-S") and len(a) > 2)) else 2
            script = " ".join([value, *argv[i + skip:]])
            return items + [("ask", "env -S splits a string into a command"), ("script", script)]
        elif a == "--":
            i += 1
            break
        elif a.startswith("-") and a != "-":
            i += 1
        else:
            break
    return items + _rest(argv, i)


def _simple_prefix(with_arg: frozenset[str], short: str = "") -> Callable[[list[str]], list[Item]]:
    def unwrap(argv: list[str]) -> list[Item]:
        return _rest(argv, _skip_options(argv, 1, with_arg, short))
    return unwrap


def _timeout(argv: list[str]) -> list[Item]:
    i = _skip_options(argv, 1, frozenset({"-s", "-k", "--signal", "--kill-after"}), "sk")
    return _rest(argv, i + 1)  # the duration comes first


def _command(argv: list[str]) -> list[Item]:
    if any(a in ("-v", "-V") for a in argv[1:2]):
        return []  # `command -v X` only looks X up
    return _rest(argv, _skip_options(argv, 1, frozenset()))


def _xargs(argv: list[str]) -> list[Item]:
    with_arg = frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--eof",
                          "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars",
                          "--process-slot-var"})
    i = _skip_options(argv, 1, with_arg, "adEILnPs")
    if i >= len(argv):
        return [("argv", ["echo"])]  # xargs with no command only echoes its input
    return [("ask", "xargs runs a command with arguments taken from its input"), ("argv", argv[i:])]


def _shell(argv: list[str]) -> list[Item]:
    i, has_c = 1, False
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if a.startswith("--"):
            i += 1
            continue
        if a[:1] in "-+" and len(a) > 1:
            has_c = has_c or "c" in a[1:]
            i += 2 if ("o" in a[1:] or "O" in a[1:]) else 1
            continue
        break
    if has_c:
        if i >= len(argv):
            return [("ask", f"{argv[0]} -c without a script")]
        return [("script", argv[i])]
    if i < len(argv):
        return [("ask", f"{argv[0]} runs the script file {argv[i]!r}, whose contents are not judged")]
    return [("ask", f"{argv[0]} without -c starts a shell")]


def _find(argv: list[str]) -> list[Item]:
    items: list[Item] = []
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(argv) and argv[j] not in (";", "+"):
                j += 1
            if j >= len(argv):
                return items + [("ask", f"find {a} without its terminating ';' or '+'")]
            items.append(("ask", f"find {a} runs a command for each file"))
            if j > i + 1:
                items.append(("argv", argv[i + 1:j]))
            i = j + 1
            continue
        i += 1
    return items


def _eval(argv: list[str]) -> list[Item]:
    return [("script", " ".join(argv[1:]))] if len(argv) > 1 else []


def _git(argv: list[str]) -> list[Item]:
    i = _skip_options(argv, 1, frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"}))
    sub, rest = (argv[i], argv[i + 1:]) if i < len(argv) else ("", [])
    if sub == "submodule" and "foreach" in rest:
        return [("script", " ".join(rest[rest.index("foreach") + 1:]))]
    if sub == "rebase":
        for k, a in enumerate(rest):
            if a in ("-x", "--exec") and k + 1 < len(rest):
                return [("script", rest[k + 1])]
            if a.startswith("--exec="):
                return [("script", a.split("=", 1)[1])]
    if sub == "bisect" and rest[:1] == ["run"] and len(rest) > 1:
        return [("argv", rest[1:])]
    return []


def _watch(argv: list[str]) -> list[Item]:
    # watch joins its words and runs them with `sh -c` (with -x, as an argv): judged as a script,
    # which reads the same words at least as strictly.
    i = _skip_options(argv, 1, frozenset({"-n", "--interval", "-q", "--equexit"}), "nq")
    return [("script", " ".join(argv[i:]))] if i < len(argv) else []


def _flock(argv: list[str]) -> list[Item]:
    # flock [options] FILE COMMAND [ARGS] or flock [options] FILE -c SCRIPT
    for k, a in enumerate(argv[1:], 1):
        if a in ("-c", "--command") or a.startswith("--command="):
            script = a.split("=", 1)[1] if "=" in a else (argv[k + 1] if k + 1 < len(argv) else "")
            return [("script", script)]
    i = _skip_options(argv, 1, frozenset({"-w", "--timeout", "--wait", "-E", "--conflict-exit-code"}), "wE")
    return [("argv", argv[i + 1:])] if i + 1 < len(argv) else []


def _script(argv: list[str]) -> list[Item]:
    # script [-c COMMAND] [FILE]: records a session into FILE (default ./typescript), running COMMAND or a shell
    for k, a in enumerate(argv[1:], 1):
        if a in ("-c", "--command") or a.startswith("--command="):
            inner = a.split("=", 1)[1] if "=" in a else (argv[k + 1] if k + 1 < len(argv) else "")
            return [("ask", "script writes a typescript file"), ("script", inner)]
    return [("ask", "script starts an interactive shell and writes a typescript file")]


def _busybox(argv: list[str]) -> list[Item]:
    return [("argv", argv[1:])] if len(argv) > 1 else []


WRAPPERS: dict[str, Callable[[list[str]], list[Item]]] = {
    "sudo": _sudo,
    "doas": _simple_prefix(frozenset({"-u", "-C"}), "uC"),
    "env": _env,
    "nohup": _simple_prefix(frozenset()),
    "setsid": _simple_prefix(frozenset()),
    "nice": _simple_prefix(frozenset({"-n", "--adjustment"}), "n"),
    "ionice": _simple_prefix(frozenset({"-c", "-n", "--class", "--classdata"}), "cn"),
    "stdbuf": _simple_prefix(frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), "ioe"),
    "chrt": _simple_prefix(frozenset()),
    "taskset": _simple_prefix(frozenset()),
    "unbuffer": _simple_prefix(frozenset()),
    "timeout": _timeout,
    "command": _command,
    "builtin": _simple_prefix(frozenset()),
    "exec": _simple_prefix(frozenset({"-a"}), "a"),
    "time": _simple_prefix(frozenset()),
    "xargs": _xargs,
    "find": _find,
    "eval": _eval,
    "git": _git,
    "busybox": _busybox,
    "watch": _watch,
    "flock": _flock,
    "script": _script,
    **{name: _shell for name in _SHELLS},
}


# ----- options that make an otherwise allowed command unsafe to run unasked -----------------

# awk options known to change nothing but parsing; any other option asks (gawk's -f, -E, -i and -l
# load program text or a shared library nobody judged; -d, -p and -o write files).
_AWK_FLAGS = frozenset({"-b", "-c", "-N", "-P", "-r", "-S", "-V", "--posix", "--traditional", "--re-interval",
                        "--characters-as-bytes", "--sandbox", "--use-lc-numeric", "--version"})
_AWK_RISKY_TEXT = ("system", "|", ">", "getline", "@include", "@load")


def _awk(argv: list[str]) -> list[str]:
    """Judge every awk program text (the operand, or each -e/--source); ask on any option not known safe."""
    programs: list[str] = []
    by_option = False
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            attached = bool(eq)
        else:
            name, value = a[:2], a[2:]
            attached = bool(value)
        if name in ("-F", "-v", "--field-separator", "--assign"):
            i += 1 if attached else 2
            continue
        if name in ("-e", "--source"):
            if not attached:
                i += 1
                value = argv[i] if i < len(argv) else ""
            programs.append(value)
            by_option = True
            i += 1
            continue
        if a in _AWK_FLAGS:
            i += 1
            continue
        if name in ("-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load"):
            return [f"awk {name} runs program text or a library that is not judged"]
        return [f"awk option {name} is not known to be safe"]
    if not by_option and i < len(argv):
        programs.append(argv[i])
    if any(t in program for program in programs for t in _AWK_RISKY_TEXT):
        return ["the awk program may run commands or write files"]
    return []


def _flagged(options: tuple[str, ...], reason: str, short: str = "") -> Callable[[list[str]], list[str]]:
    """A check that asks when any of `options` appears, also abbreviated (getopt_long accepts `--compress`)."""
    def check(argv: list[str]) -> list[str]:
        for a in argv[1:]:
            name = a.split("=", 1)[0]
            if any(name == o or (name.startswith("--") and len(name) > 2 and o.startswith(name)) for o in options):
                return [f"{reason} ({name})"]
            if short and len(a) > 1 and a[0] == "-" and a[1] != "-" and set(a[1:]) & set(short):
                return [f"{reason} ({a[:2]})"]
        return []
    return check


_sort_output = _flagged(("-o", "--output"), "sort -o writes a file", "o")
_sort_program = _flagged(("--compress-program",), "sort --compress-program runs a program")


def _sort(argv: list[str]) -> list[str]:
    return _sort_output(argv) + _sort_program(argv)


def _find_risky(argv: list[str]) -> list[str]:
    bad = {"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
    return [f"find {a} changes files" for a in argv[1:] if a in bad]


def _git_risky(argv: list[str]) -> list[str]:
    out: list[str] = []
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        if a == "-c" or a.startswith(("--config-env", "--exec-path", "-c")):
            out.append("git -c / --config-env / --exec-path can make git run other programs")
        i += 2 if a in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env") else 1
    if any(a.startswith("--output") or a in ("--ext-diff", "--open-files-in-pager", "--edit-description") or a.startswith("-O")
           for a in argv[i:]):
        out.append("this git option writes files or runs a program")
    return out


def _writes_operand(position: int, reason: str, with_arg: frozenset[str] = frozenset(),
                    short_with_arg: str = "") -> Callable[[list[str]], list[str]]:
    """A check for commands whose Nth operand is a file they write: `uniq IN OUT`, `xxd IN OUT`."""
    def check(argv: list[str]) -> list[str]:
        operands: list[str] = []
        i, ended = 1, False
        while i < len(argv):
            a = argv[i]
            if ended or not a.startswith("-") or a == "-":
                operands.append(a)
            elif a == "--":
                ended = True
            elif a in with_arg or (len(a) == 2 and a[1] in short_with_arg):
                i += 1  # the option's value is the next word
            i += 1
        return [reason] if len(operands) >= position else []
    return check


def _less(argv: list[str]) -> list[str]:
    # `+!cmd` / `+|cmd` are start-up commands that run a shell; -o/-O copy the input to a file;
    # a lesskey file can set LESSOPEN, which runs a program on every file opened.
    for a in argv[1:]:
        if a.startswith("+") and ("!" in a or "|" in a):
            return [f"less {a[:12]!r} runs a shell command"]
    return _less_options(argv)


_less_options = _flagged(("-o", "-O", "--log-file", "--LOG-FILE", "-k", "--lesskey-file", "--lesskey-src",
                          "--lesskey-content"), "this less option writes a file or loads key bindings that run programs",
                         "oOk")


def _sqlite(argv: list[str]) -> list[str]:
    # Dot-commands in an argument run programs (.shell, .system, .excel), write files (.output, .once,
    # .save, .backup, .dump to a file via .output) or open another database; -init/-cmd run more of them.
    for a in argv[1:]:
        if a.split("=", 1)[0] in ("-init", "-cmd", "--init", "--cmd"):
            return [f"sqlite3 {a.split('=', 1)[0]} runs commands that are not judged"]
        lowered = a.lower()
        if any(t in lowered for t in (".shell", ".system", ".excel", ".output", ".once", ".save", ".backup",
                                      ".open", ".import", ".load", "edit(", "load_extension", "attach",
                                      "vacuum into", "writefile(")):
            return ["this sqlite3 command may run a program or write a file"]
    return []


def _python(argv: list[str]) -> list[str]:
    # Only options before the script or `-m module` are python's own (`python -m pytest -c cfg` is pytest's -c).
    for a in argv[1:]:
        if a == "--" or not a.startswith("-") or a == "-":
            return []
        if a.startswith("--"):
            continue
        for k, letter in enumerate(a[1:]):
            if letter == "c":
                return ["python -c runs an inline program, whose text is not judged"]
            if letter in "mWX":  # -m ends the options; -W and -X take the rest of the word as a value
                return [] if letter == "m" else (_python_rest(argv, a) if k == len(a) - 2 else [])
    return []


def _python_rest(argv: list[str], a: str) -> list[str]:
    """After an option that takes the next word as its value (`-W ignore`): judge what follows."""
    i = argv.index(a)
    return _python([argv[0], *argv[i + 2:]])


# Interpreters whose options run a program given inline (or load code by name): the text of such a
# program cannot be judged, so an allowed `perl -ne` still asks when it is handed one to run.
_INLINE = {
    "perl": (("-e", "-E", "-M", "-m", "-i", "-x", "-d"), "eEMmixd"),
    "ruby": (("-e", "-r", "-i", "-x", "--require"), "erix"),
    "node": (("-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader",
              "--experimental-loader"), "epr"),
    "php": (("-r", "-B", "-R", "-F", "-E"), "rBRFE"),
    "lua": (("-e", "-l"), "el"),
}


_make_options = _flagged(("-f", "--file", "--makefile", "--eval", "-E", "-C", "--directory", "-I", "--include-dir"),
                         "this make option runs rules from another makefile or directory", "fECI")


def _make(argv: list[str]) -> list[str]:
    # An allowed `make test` runs the workspace's own rules; `make test SHELL=...` or `-f other.mk`
    # runs something else under the same approval.
    assigned = [a.split("=", 1)[0] for a in argv[1:] if not a.startswith("-") and ASSIGNMENT.match(a)]
    if assigned:
        return [f"make variable overrides change what the rules run ({', '.join(assigned[:3])})"]
    return _make_options(argv)


RISKY: dict[str, Callable[[list[str]], list[str]]] = {
    "sed": sed_risks,
    "gsed": sed_risks,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
    "find": _find_risky,
    "git": _git_risky,
    "rg": _flagged(("--pre",), "rg --pre runs a program on every file"),
    "sort": _sort,
    "tar": _flagged(("--to-command", "--checkpoint-action", "--use-compress-program", "-I", "--info-script",
                     "--new-volume-script", "-F"), "this tar option runs a program"),
    # Read-only tools with an option (or operand) that runs a program or writes a file.
    "man": _flagged(("-P", "--pager", "-H", "--html", "-C", "--config-file", "-X", "--gxditview"),
                    "this man option runs a program of its choosing", "PHCX"),
    "less": _less,
    "make": _make,
    "gmake": _make,
    **{npm: _flagged(("--script-shell",), f"{npm} --script-shell runs scripts through another program")
       for npm in ("npm", "pnpm", "yarn")},
    "tree": _flagged(("-o", "--output", "-R"), "tree -o / -R writes files", "oR"),
    "fd": _flagged(("-x", "--exec", "-X", "--exec-batch"), "fd -x runs a command on every match", "xX"),
    "fdfind": _flagged(("-x", "--exec", "-X", "--exec-batch"), "fd -x runs a command on every match", "xX"),
    "sqlite3": _sqlite,
    **{name: _python for name in ("python", "python3", "python2", "pypy", "pypy3")},
    **{name: _flagged(options, f"{name} runs an inline program or loads code by name, whose text is not judged",
                      short) for name, (options, short) in _INLINE.items()},
    "bat": _flagged(("--pager",), "bat --pager runs a program of its choosing"),
    # `test -v 'a[$(cmd)]'` evaluates the subscript, and with it the command, from a quoted word.
    "test": lambda argv: ["test -v evaluates an array subscript, which can run commands"] if "-v" in argv[1:] else [],
    **{name: _flagged(("-C", "-F"), f"{name} -C / -F runs a command or function", "CF")
       for name in ("compgen", "complete")},
    "file": _flagged(("-C", "--compile"), "file -C writes a compiled magic file", "C"),
    "date": _flagged(("-s", "--set"), "date -s sets the system clock", "s"),
    "yq": _flagged(("-i", "--inplace"), "yq -i edits the file in place", "i"),
    "uniq": _writes_operand(2, "uniq writes its second operand (uniq IN OUT)",
                            frozenset({"-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"})),
    "xxd": _writes_operand(2, "xxd writes its second operand (xxd IN OUT)",
                           frozenset({"-c", "-g", "-l", "-n", "-o", "-s", "-cols", "-groupsize", "-len", "-name",
                                      "-offset", "-seek"})),
}


# Builtins that assign shell variables by name (`read PATH`, `printf -v PATH`, `mapfile`, `getopts`,
# `let`, `wait -p`): an assignment the lexer cannot see, so it is judged like `NAME=value`.
_ALWAYS_ASSIGNS = frozenset({"read", "mapfile", "readarray", "getopts", "let"})
_ASSIGNS_WITH = {"printf": "v", "wait": "p"}


def _assigns_variables(name: str, argv: list[str]) -> bool:
    if name in _ALWAYS_ASSIGNS:
        return True
    letter = _ASSIGNS_WITH.get(name)
    if letter is None:
        return False
    for a in argv[1:]:
        if a == "--" or not a.startswith("-") or a == "-":
            return False
        if letter in a[1:]:
            return True
    return False


def risky_options(argv: list[str]) -> list[str]:
    """Reasons this command must not be auto-approved even when a rule allows it."""
    name = basename(argv[0])
    if name in _ENV_CHANGERS:
        return [f"{name} changes the shell's environment or runs code"]
    if _assigns_variables(name, argv):
        return [f"{name} assigns shell variables, which change what later commands run"]
    check = RISKY.get(name)
    return check(argv) if check else []


def unwrap(argv: list[str]) -> list[Item]:
    """The commands `argv` runs inside itself, and notes for what cannot be followed."""
    fn = WRAPPERS.get(basename(argv[0]))
    return fn(argv) if fn else []
