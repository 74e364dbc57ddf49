#!/usr/bin/env python3
"""Writes a man page from one of docs/*.md, so the docs stay the one source
of truth: `# Title` becomes the NAME line, `##` sections, `###` subsections,
tables tagged paragraphs (the first cell the tag), lists and fenced code as
they read. Only the Markdown the docs use; links keep their text (and the
address when it is a web one).

Usage: md2man.py DOC.md NAME SECTION "one-line description" VERSION OUT
       [--date YYYY-MM-DD] [--see-also "glovebox-policy(5), ..."]
"""
import re
import sys


def escape(text):
    # Backslashes first; then what roff reads as requests at a line's start.
    return text.replace("\\", "\\e")


def inline(text):
    out = []
    # `code` spans are literal: bold, minus signs kept as such.
    for i, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if i % 2:
            code = escape(part[1:-1]).replace("-", "\\-")
            out.append("\\fB" + code + "\\fR")
            continue
        part = part.replace("\\|", "|")
        part = escape(part)
        # Links: keep the text; web addresses after it.
        part = re.sub(
            r"\[([^\]]+)\]\(([^)]+)\)",
            lambda m: m.group(1) + (" <" + m.group(2) + ">" if m.group(2).startswith("http") else ""),
            part,
        )
        part = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", part)
        part = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?!\w)", r"\\fI\1\\fR", part)
        out.append(part)
    line = "".join(out)
    return line


def text_lines(text):
    """Roff lines for running text: nothing may start with . or '."""
    line = inline(text.strip())
    if line.startswith(".") or line.startswith("'"):
        line = "\\&" + line
    return line


def cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", row)]


def convert(md, name, section, description, version, date, see_also):
    lines = md.splitlines()
    out = [
        '.\\" Generated from docs by scripts/md2man.py; edit the Markdown, not this.',
        '.TH "%s" "%s" "%s" "glovebox %s" "glovebox"' % (name.upper(), section, date, version),
        ".SH NAME",
        "%s \\- %s" % (name, escape(description)),
    ]
    i = 0
    para = []
    first_heading_seen = False

    def flush():
        if para:
            out.append(".PP")
            out.append(text_lines(" ".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            out.append(".PP")
            out.append(".RS 4")
            out.append(".nf")
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                code = escape(lines[i]).replace("-", "\\-")
                if code.startswith(".") or code.startswith("'"):
                    code = "\\&" + code
                out.append(code)
                i += 1
            out.append(".fi")
            out.append(".RE")
            i += 1
            continue
        m = re.match(r"^(#{1,4})\s+(.*)$", line)
        if m:
            flush()
            level, title = len(m.group(1)), m.group(2).strip()
            if level == 1:
                if not first_heading_seen:
                    first_heading_seen = True
                    out.append(".SH DESCRIPTION")
                else:
                    out.append('.SH "%s"' % inline(title).upper().replace('"', ""))
            elif level == 2:
                out.append('.SH "%s"' % inline(title).upper().replace('"', ""))
            else:
                out.append('.SS "%s"' % inline(title).replace('"', ""))
            i += 1
            continue
        if stripped.startswith("|"):
            flush()
            header = cells(stripped)
            i += 1
            if i < len(lines) and re.match(r"^\|?\s*:?-", lines[i].strip()):
                i += 1
            while i < len(lines) and lines[i].strip().startswith("|"):
                row = cells(lines[i])
                out.append(".TP")
                out.append(text_lines(row[0]) or "\\&")
                body = []
                for h, c in zip(header[1:], row[1:]):
                    if not c:
                        continue
                    # The last column is the meaning; others are named.
                    if h and h != header[-1]:
                        body.append(text_lines("%s: %s" % (h, c)))
                    else:
                        body.append(text_lines(c))
                out.append("\n.br\n".join(body) if body else "\\&")
                i += 1
            continue
        m = re.match(r"^(\s*)([-*]|\d+\.)\s+(.*)$", line)
        if m:
            flush()
            bullet = "\\(bu" if m.group(2) in "-*" else m.group(2)
            item = [m.group(3)]
            i += 1
            # Continuation lines are indented.
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip() \
                    and not re.match(r"^\s*([-*]|\d+\.)\s+", lines[i]):
                item.append(lines[i].strip())
                i += 1
            out.append(".IP %s 4" % bullet)
            out.append(text_lines(" ".join(item)))
            continue
        if not stripped:
            flush()
            i += 1
            continue
        para.append(stripped)
        i += 1
    flush()
    if see_also:
        out.append('.SH "SEE ALSO"')
        out.append(escape(see_also))
    return "\n".join(out) + "\n"


def main(argv):
    args = argv[1:]
    date, see_also = "", ""
    while "--date" in args or "--see-also" in args:
        for flag in ("--date", "--see-also"):
            if flag in args:
                k = args.index(flag)
                value = args[k + 1]
                del args[k:k + 2]
                if flag == "--date":
                    date = value
                else:
                    see_also = value
    if len(args) != 6:
        sys.stderr.write(__doc__)
        return 2
    src, name, section, description, version, dst = args
    with open(src, encoding="utf-8") as f:
        md = f.read()
    with open(dst, "w", encoding="utf-8") as f:
        f.write(convert(md, name, section, description, version, date, see_also))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
