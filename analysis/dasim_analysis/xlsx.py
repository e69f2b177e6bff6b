"""Reads the cell text of an Excel workbook (.xlsx) with the Python standard library only.

An .xlsx file is a zip archive of XML parts (ECMA-376, SpreadsheetML): xl/workbook.xml lists the
sheets by name with a relationship id, xl/_rels/workbook.xml.rels maps that id to the sheet's XML
part, and each cell of a sheet part holds either its value or an index into xl/sharedStrings.xml.
Only what a results table needs is read: every cell as the text Excel stores (numbers as written
in the XML, e.g. "3.7999999999999999E-2", shared and inline strings as their text); formulas,
styles and dates are not interpreted.

Errors name the file and end the command with exit status 2 (errors.fail): a file that is not a
zip archive, a workbook without the parts above, a sheet name that is not in the workbook.
"""

import posixpath
import re
import zipfile
import xml.etree.ElementTree as ElementTree

from .errors import fail

MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELATIONSHIP_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PACKAGE_RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
CELL_REFERENCE = re.compile(r"^([A-Z]+)([0-9]+)$")


def _tag(name, namespace=MAIN_NS):
    return f"{{{namespace}}}{name}"


def column_index(letters):
    """'A' -> 0, 'B' -> 1, 'Z' -> 25, 'AA' -> 26."""
    index = 0
    for letter in letters:
        index = index * 26 + ord(letter) - ord("A") + 1
    return index - 1


def column_letters(index):
    """The inverse of column_index: 0 -> 'A', 26 -> 'AA' (for messages that name a cell)."""
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


class Workbook:
    """The sheets of one .xlsx file: sheet_names (in workbook order) and rows(name)."""

    def __init__(self, path):
        self.path = path
        try:
            self._zip = zipfile.ZipFile(path)
        except FileNotFoundError:
            fail(f"{path}: no such file")
        except (zipfile.BadZipFile, OSError) as error:
            reason = "not a zip archive" if isinstance(error, zipfile.BadZipFile) else error.strerror
            fail(f"{path}: not an .xlsx workbook ({reason})")
        self._strings = self._shared_strings()
        self._parts = self._sheet_parts()
        self.sheet_names = list(self._parts)

    def _xml(self, part, required=True):
        try:
            data = self._zip.read(part)
        except KeyError:
            if required:
                fail(f"{self.path}: not an .xlsx workbook (no part {part})")
            return None
        try:
            return ElementTree.fromstring(data)
        except ElementTree.ParseError as error:
            fail(f"{self.path}: {part}: not well-formed XML ({error})")

    def _shared_strings(self):
        # Optional: a workbook with no text cells has no sharedStrings part. A string item is one
        # <t> or several rich-text runs <r><t>; phonetic hints (<rPh>) are not part of the text.
        root = self._xml("xl/sharedStrings.xml", required=False)
        if root is None:
            return []
        strings = []
        for item in root.findall(_tag("si")):
            runs = [item.find(_tag("t"))] + [r.find(_tag("t")) for r in item.findall(_tag("r"))]
            strings.append("".join(t.text or "" for t in runs if t is not None))
        return strings

    def _sheet_parts(self):
        workbook = self._xml("xl/workbook.xml")
        relationships = self._xml("xl/_rels/workbook.xml.rels")
        targets = {r.get("Id"): r.get("Target")
                   for r in relationships.findall(_tag("Relationship", PACKAGE_RELS_NS))}
        sheets = workbook.find(_tag("sheets"))
        if sheets is None:
            fail(f"{self.path}: not an .xlsx workbook (xl/workbook.xml lists no sheets)")
        parts = {}
        for sheet in sheets.findall(_tag("sheet")):
            target = targets.get(sheet.get(_tag("id", RELATIONSHIP_NS)))
            if target is None:
                fail(f"{self.path}: xl/workbook.xml: sheet '{sheet.get('name')}' has no relationship")
            # Targets are relative to xl/ unless absolute within the package ("/xl/...").
            parts[sheet.get("name")] = (target.lstrip("/") if target.startswith("/")
                                        else posixpath.normpath(posixpath.join("xl", target)))
        return parts

    def rows(self, name):
        """{row number (1-based, as Excel shows it): [cell text of column A, B, ...]} of sheet
        NAME; rows the sheet does not store are absent, missing cells are ''."""
        if name not in self._parts:
            fail(f"{self.path}: no sheet '{name}' (the workbook has "
                 f"{', '.join(repr(n) for n in self.sheet_names)})")
        root = self._xml(self._parts[name])
        rows = {}
        for row in root.iter(_tag("row")):
            cells = {}
            for cell in row.findall(_tag("c")):
                match = CELL_REFERENCE.match(cell.get("r", ""))
                if not match:
                    fail(f"{self.path}: sheet '{name}': a cell without a reference (r=\"A1\")")
                cells[column_index(match.group(1))] = self._cell_text(cell)
                number = int(match.group(2))
            if not cells:
                continue
            number = int(row.get("r", number))
            rows[number] = [cells.get(i, "") for i in range(max(cells) + 1)]
        return rows

    def _cell_text(self, cell):
        kind = cell.get("t")
        if kind == "inlineStr":
            return "".join(t.text or "" for t in cell.iter(_tag("t")))
        value = cell.find(_tag("v"))
        text = value.text if value is not None and value.text is not None else ""
        if kind == "s" and text:
            index = int(text)
            if index >= len(self._strings):
                fail(f"{self.path}: cell {cell.get('r')}: shared string {index} does not exist")
            return self._strings[index]
        return text
