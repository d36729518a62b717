#!/usr/bin/env python3
"""Turns docs/configuration.md into the lull.toml(5) man page, so the page never drifts from
the reference: `make man` runs it, and a test checks that the committed page is its output.

    python3 man/md2man.py docs/configuration.md > man/lull.toml.5

It understands the Markdown that file uses: headings, paragraphs, fenced code, tables (each row
becomes a tagged paragraph), bullet lists, `code`, *emphasis*, **strong** and [links](url).
"""

import re
import sys

LIST_ITEM = re.compile(r"^\s*([-*]|\d+\.) ")
TITLE = ".TH LULL.TOML 5 {date} \"Lull {version}\" \"File Formats\""


def escape(text):
    text = text.replace("\\", "\\e")
    return text


def inline(text):
    text = escape(text)
    text = re.sub(r"\[((?:[^\[\]]|\[[^\]]*\])+)\]\([^)]+\)", r"\1", text)
    text = re.sub(r"`([^`]+)`", lambda m: "\\fB" + m.group(1).replace("-", "\\-") + "\\fR", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\\fI\1\\fR", text)
    return text


def line_safe(text):
    """A roff text line must not start with a control character."""
    return "\\&" + text if text.startswith((".", "'")) else text


def cells(row):
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def convert(markdown, date, version):
    out = [TITLE.format(date=date, version=version), ".SH NAME",
           "lull.toml \\- configuration file of lulld, the Lull background transfer daemon",
           ".SH SYNOPSIS", "\\fI~/.config/lull/lull.toml\\fR (user instance), \\fI/etc/lull/lull.toml\\fR (system instance)",
           ".SH DESCRIPTION"]
    lines = markdown.splitlines()
    paragraph = []
    index = 0

    def flush():
        if paragraph:
            out.append(".PP")
            out.extend(line_safe(inline(text)) for text in paragraph)
            paragraph.clear()

    while index < len(lines):
        line = lines[index]
        if line.startswith("```"):
            flush()
            out += [".PP", ".RS 4", ".nf"]
            index += 1
            while index < len(lines) and not lines[index].startswith("```"):
                out.append(line_safe(escape(lines[index])))
                index += 1
            out += [".fi", ".RE"]
        elif line.startswith("# "):
            flush()  # the document title: NAME says it
        elif line.startswith("## "):
            flush()
            out.append(".SH " + inline(line[3:]).upper())
        elif line.startswith("### "):
            flush()
            out.append(".SS " + inline(line[4:]))
        elif line.startswith("#### "):
            flush()
            out += [".PP", line_safe(inline(line[5:]))]
        elif line.startswith("|"):
            flush()
            header = cells(line)
            index += 2  # the header and the |---| rule
            while index < len(lines) and lines[index].startswith("|"):
                row = cells(lines[index])
                out += [".TP", line_safe(inline(row[0]))]
                out.append(line_safe(inline("; ".join(
                    f"{name}: {value}" if name else value for name, value in zip(header[1:], row[1:]) if value))))
                index += 1
            continue
        elif LIST_ITEM.match(line):
            flush()
            marker = LIST_ITEM.match(line).group(1)
            item = [LIST_ITEM.sub("", line)]
            while (index + 1 < len(lines) and lines[index + 1].startswith("  ") and lines[index + 1].strip()
                   and not LIST_ITEM.match(lines[index + 1])):
                index += 1
                item.append(lines[index].strip())
            indent = "\\(bu 2" if marker in "-*" else marker + " 4"
            out += [".IP " + indent, line_safe(inline(" ".join(item)))]
        elif not line.strip():
            flush()
        else:
            paragraph.append(line.strip())
        index += 1
    flush()
    out += [".SH SEE ALSO", "\\fBlulld\\fR(8), \\fBlullctl\\fR(1)"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    source = sys.argv[1] if len(sys.argv) > 1 else "docs/configuration.md"
    date = sys.argv[2] if len(sys.argv) > 2 else "2026-11-21"
    version = sys.argv[3] if len(sys.argv) > 3 else "0.1.0"
    with open(source, encoding="utf-8") as handle:
        sys.stdout.write(convert(handle.read(), date, version))
