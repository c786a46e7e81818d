#!/usr/bin/env python3
"""check_completions.py POSTMORTEM BASH_COMPLETION ZSH_COMPLETION

The completions offer every subcommand `postmortem --help` lists and every
flag each `postmortem CMD --help` lists, and no flag the help does not list.
Bash: the completion function itself is run, as bash runs it on <TAB>.
Zsh: each command's case holds its flags (its shared arrays expanded), and
the file parses (zsh -n) when zsh is installed.
"""
import re
import shutil
import subprocess
import sys

OPTION_LINE = re.compile(r"^\s+(?:(-[A-Za-z]),\s+)?(--[a-z][a-z-]*)|^\s+(-[A-Za-z])\s")


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def commands(pm):
    text = run(pm, "--help")
    listed = text.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


def flags(pm, cmd):
    found = set()
    for line in run(pm, cmd, "--help").splitlines():
        m = OPTION_LINE.match(line)
        if m:
            found.update(f for f in m.groups() if f)
    return found


def bash_offers(script, words):
    """COMPREPLY when the user presses <TAB> after `words` (the last one being typed)."""
    quoted = " ".join("'%s'" % w for w in words)
    prog = f"source '{script}'; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; _postmortem; " \
           'printf "%s\\n" "${COMPREPLY[@]}"'
    return set(run("bash", "-c", prog).split())


def zsh_case(text, cmd):
    m = re.search(r"^\t%s\)(.*?);;" % re.escape(cmd), text, re.M | re.S)
    if not m:
        return None
    # Options of zsh's own helpers (_arguments -S, _command_names -e) are not postmortem's.
    body = re.sub(r"(\b_\w+)(\s+-\w+)+", r"\1", m.group(1))
    for name, value in re.findall(r"local -a (\w+)=\((.*)\)$", text, re.M):
        body = body.replace("$" + name, value)
    return body


def main():
    pm, bash_file, zsh_file = sys.argv[1:4]
    errors = []
    cmds = commands(pm)
    top = bash_offers(bash_file, ["postmortem", ""])
    for want in cmds + ["--version", "-v", "version", "--help"]:
        if want not in top:
            errors.append(f"bash: 'postmortem <TAB>' does not offer {want}")
    zsh_text = open(zsh_file, encoding="utf-8").read()
    for cmd in cmds:
        want = flags(pm, cmd)
        if not want:
            errors.append(f"{cmd} --help lists no option")
        got = bash_offers(bash_file, ["postmortem", cmd, "-"])
        for f in sorted(want - got):
            errors.append(f"bash: 'postmortem {cmd} -<TAB>' does not offer {f}")
        for f in sorted(got - want):
            errors.append(f"bash: 'postmortem {cmd} -<TAB>' offers {f}, which {cmd} --help does not list")
        if not re.search(r"^\t\t'%s:" % re.escape(cmd), zsh_text, re.M):
            errors.append(f"zsh: no command {cmd}")
        body = zsh_case(zsh_text, cmd)
        if body is None:
            errors.append(f"zsh: no case for {cmd}")
            continue
        got = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)(?![\w-])", body))
        got = {g for g in got if g.startswith("--") or len(g) == 2}
        for f in sorted(want - got):
            errors.append(f"zsh: {cmd} does not complete {f}")
        for f in sorted(got - want):
            errors.append(f"zsh: {cmd} completes {f}, which {cmd} --help does not list")
    if shutil.which("zsh"):
        r = subprocess.run(["zsh", "-n", zsh_file], capture_output=True, text=True)
        if r.returncode:
            errors.append("zsh -n: " + r.stderr.strip())
    else:
        print("zsh not installed: its completion was checked as text only")
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"completions: {len(cmds)} commands and their flags, bash and zsh")


if __name__ == "__main__":
    main()
