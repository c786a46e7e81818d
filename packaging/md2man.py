#!/usr/bin/env python3
"""md2man.py IN.md OUT.1 VERSION — the man page from tools/postmortem.md.

The page is written once, in Markdown, and read on GitHub as it is; this turns
the subset it uses (headings, paragraphs, bullet lists, code blocks, pipe
tables, `code` and **bold**) into man(7) roff for `meson install`.
"""
import re
import sys


def inline(text):
    text = text.replace("\\", "\\e")
    text = re.sub(r"\*\*(.+?)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    return text


def line(text):
    """A roff text line: one starting with . or ' would be a request; roff
    input is ASCII, other characters go as their Unicode escapes."""
    text = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)
    return "\\&" + text if text[:1] in (".", "'") else text


def convert(md, version):
    out = []
    lines = md.splitlines()
    title = re.match(r"#\s+(\S+)\((\d)\)", lines[0])
    if not title:
        sys.exit("md2man: the first line must be '# name(section)'")
    name, section = title.groups()
    out.append(f'.TH {name.upper()} {section} "" "{name} {version}" "User Commands"')
    in_code = False
    for raw in lines[1:]:
        if raw.startswith("```"):
            out.append(".EX" if not in_code else ".EE")
            in_code = not in_code
        elif in_code:
            out.append(line(raw.replace("\\", "\\e")))
        elif raw.startswith("## "):
            out.append(".SH " + raw[3:].upper())
        elif re.match(r"\|[-| ]+\|$", raw):
            continue
        elif raw.startswith("|"):
            cells = [inline(c.strip()) for c in raw.strip("|").split("|")]
            out.append(".TP\n" + line(cells[0]) + "\n" + line(" ".join(cells[1:])))
        elif raw.startswith("- "):
            out.append(".IP \\(bu 2\n" + line(inline(raw[2:])))
        elif not raw.strip():
            out.append(".PP")
        else:
            out.append(line(inline(raw.strip())))
    if in_code:
        sys.exit("md2man: a code block is not closed")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    src, dst, version = sys.argv[1:4]
    with open(src, encoding="utf-8") as f:
        page = convert(f.read(), version)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(page)
