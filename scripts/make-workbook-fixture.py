#!/usr/bin/env python3
"""Writes fixtures/patients.xlsx and fixtures/eligibility.xlsx.

The workbooks are written by hand (zipfile and SpreadsheetML text, Python's standard library only),
laid out as Excel writes them, so that the CLI's reader is tested on a file no exceljs code wrote:
the parts in Excel's order (worksheets before styles.xml and sharedStrings.xml), shared strings,
rich text, a formula with its cached value, number cells holding phone numbers and ids, and date
cells in a built-in (14) and a custom ("m/d/yyyy") format.

patients.xlsx is for sandbox definition 1 (Appointment reminder): sheet 1 "Patients" (good rows whose
phone numbers end in digits that give a spread of sandbox call outcomes, and four broken rows),
sheet 2 "Notes" (free text). eligibility.xlsx holds one sheet "Eligibility" of checks.

Usage: python3 scripts/make-workbook-fixture.py [out_dir=fixtures]
The output is deterministic: the same script always writes the same bytes.
"""

import os
import sys
import zipfile
from datetime import date
from xml.sax.saxutils import escape, quoteattr

MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships'
XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'

# Styles (cellXfs indices): 0 General, 1 date (built-in 14), 2 date (custom 164 "m/d/yyyy"),
# 3 bold header, 4 time (custom 165 "h:mm"), 5 zero-padded id (custom 166 "000000000").
GENERAL, DATE14, DATE_MDY, BOLD, TIME, PADDED = range(6)


class SharedStrings:
    """xl/sharedStrings.xml: each distinct text once, cells refer to it by index."""

    def __init__(self):
        self.items = []  # the <si> bodies
        self.index = {}
        self.count = 0

    def add(self, text=None, runs=None):
        body = ''.join(self._run(t, bold) for t, bold in runs) if runs else self._t(text)
        self.count += 1
        if body not in self.index:
            self.index[body] = len(self.items)
            self.items.append(body)
        return self.index[body]

    @staticmethod
    def _t(text):
        space = ' xml:space="preserve"' if text != text.strip() else ''
        return f'<t{space}>{escape(text)}</t>'

    def _run(self, text, bold):
        props = '<rPr><b/><sz val="11"/><color theme="1"/><rFont val="Calibri"/><family val="2"/><scheme val="minor"/></rPr>' if bold else \
            '<rPr><sz val="11"/><color theme="1"/><rFont val="Calibri"/><family val="2"/><scheme val="minor"/></rPr>'
        return f'<r>{props}{self._t(text)}</r>'

    def xml(self):
        items = ''.join(f'<si>{body}</si>' for body in self.items)
        return f'{XML_HEAD}<sst xmlns="{MAIN}" count="{self.count}" uniqueCount="{len(self.items)}">{items}</sst>'


def col_letter(n):
    s = ''
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def serial(d):
    """Excel's day number (1900 date system) of a date."""
    return (d - date(1899, 12, 30)).days


class Sheet:
    """One worksheet: rows of cells. A cell is a str (shared string), int/float (number),
    date, ('date', date, style), ('time', fraction), ('text', str) for an inline string,
    ('rich', [(text, bold)...]), ('formula', formula, cached text), ('padded', int), or None."""

    def __init__(self, strings):
        self.strings = strings
        self.rows = []  # (row number, [cell xml])
        self.width = 0

    def row(self, number, cells, style=None, empty_styled=0):
        xml = []
        for i, value in enumerate(cells, start=1):
            ref = f'{col_letter(i)}{number}'
            cell = self._cell(ref, value, style)
            if cell:
                xml.append(cell)
        # A row Excel keeps although it holds nothing: cells that only carry a format.
        for i in range(empty_styled):
            xml.append(f'<c r="{col_letter(i + 1)}{number}" s="{DATE14}"/>')
        self.width = max(self.width, len(cells), empty_styled)
        self.rows.append((number, xml))

    def _cell(self, ref, value, style):
        s = f' s="{style}"' if style is not None else ''
        if value is None:
            return None
        if isinstance(value, str):
            return f'<c r="{ref}"{s} t="s"><v>{self.strings.add(value)}</v></c>'
        if isinstance(value, date):
            return f'<c r="{ref}" s="{DATE14}"><v>{serial(value)}</v></c>'
        if isinstance(value, (int, float)):
            return f'<c r="{ref}"{s}><v>{value}</v></c>'
        kind = value[0]
        if kind == 'date':
            return f'<c r="{ref}" s="{value[2]}"><v>{serial(value[1])}</v></c>'
        if kind == 'time':
            return f'<c r="{ref}" s="{TIME}"><v>{value[1]}</v></c>'
        if kind == 'padded':
            return f'<c r="{ref}" s="{PADDED}"><v>{value[1]}</v></c>'
        if kind == 'text':
            return f'<c r="{ref}" t="inlineStr"><is><t>{escape(value[1])}</t></is></c>'
        if kind == 'rich':
            return f'<c r="{ref}" t="s"><v>{self.strings.add(runs=value[1])}</v></c>'
        if kind == 'formula':
            return f'<c r="{ref}" t="str"><f>{escape(value[1])}</f><v>{escape(value[2])}</v></c>'
        raise ValueError(kind)

    def xml(self, selected):
        last = max(n for n, _ in self.rows)
        dimension = f'A1:{col_letter(self.width)}{last}'
        rows = ''.join(
            f'<row r="{n}" spans="1:{self.width}" x14ac:dyDescent="0.25">{"".join(cells)}</row>' for n, cells in self.rows)
        tab = ' tabSelected="1"' if selected else ''
        return (
            f'{XML_HEAD}<worksheet xmlns="{MAIN}" xmlns:r="{REL}" '
            'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14ac xr xr2 xr3" '
            'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" '
            'xmlns:xr="http://schemas.microsoft.com/office/spreadsheetml/2014/revision" '
            'xmlns:xr2="http://schemas.microsoft.com/office/spreadsheetml/2015/revision2" '
            'xmlns:xr3="http://schemas.microsoft.com/office/spreadsheetml/2016/revision3" '
            'xr:uid="{00000000-0001-0000-0000-000000000000}">'
            f'<dimension ref="{dimension}"/>'
            f'<sheetViews><sheetView{tab} workbookViewId="0"/></sheetViews>'
            '<sheetFormatPr defaultRowHeight="15" x14ac:dyDescent="0.25"/>'
            f'<cols><col min="1" max="{self.width}" width="18.7109375" customWidth="1"/></cols>'
            f'<sheetData>{rows}</sheetData>'
            '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>'
            '</worksheet>'
        )


STYLES = (
    f'{XML_HEAD}<styleSheet xmlns="{MAIN}" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14ac x16r2 xr" '
    'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" '
    'xmlns:x16r2="http://schemas.microsoft.com/office/spreadsheetml/2015/02/main" '
    'xmlns:xr="http://schemas.microsoft.com/office/spreadsheetml/2014/revision">'
    '<numFmts count="3"><numFmt numFmtId="164" formatCode="m/d/yyyy"/><numFmt numFmtId="165" formatCode="h:mm"/>'
    '<numFmt numFmtId="166" formatCode="000000000"/></numFmts>'
    '<fonts count="2" x14ac:knownFonts="1">'
    '<font><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font>'
    '<font><b/><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font></fonts>'
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    '<cellXfs count="6">'
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
    '<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>'
    '<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '<xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
    '</cellXfs>'
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
    '<dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium2" defaultPivotStyle="PivotStyleLight16"/>'
    '</styleSheet>'
)


def write_workbook(path, sheets, strings):
    """sheets: [(name, Sheet)] in tab order; sheet i is xl/worksheets/sheet{i}.xml."""
    n = len(sheets)
    overrides = ''.join(
        f'<Override PartName="/xl/worksheets/sheet{i}.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' for i in range(1, n + 1))
    content_types = (
        f'{XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        f'{overrides}'
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
        '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
        '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
        '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>'
        '</Types>'
    )
    root_rels = (
        f'{XML_HEAD}<Relationships xmlns="{PKG_REL}">'
        '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/>'
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
        '</Relationships>'
    )
    sheet_list = ''.join(f'<sheet name={quoteattr(name)} sheetId="{i}" r:id="rId{i}"/>' for i, (name, _) in enumerate(sheets, start=1))
    workbook = (
        f'{XML_HEAD}<workbook xmlns="{MAIN}" xmlns:r="{REL}" '
        'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x15 xr xr6 xr10 xr2" '
        'xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main" '
        'xmlns:xr="http://schemas.microsoft.com/office/spreadsheetml/2014/revision" '
        'xmlns:xr6="http://schemas.microsoft.com/office/spreadsheetml/2016/revision6" '
        'xmlns:xr10="http://schemas.microsoft.com/office/spreadsheetml/2016/revision10" '
        'xmlns:xr2="http://schemas.microsoft.com/office/spreadsheetml/2015/revision2">'
        '<fileVersion appName="xl" lastEdited="7" lowestEdited="7" rupBuild="27328"/>'
        '<workbookPr defaultThemeVersion="202300"/>'
        '<bookViews><workbookView xWindow="-120" yWindow="-120" windowWidth="29040" windowHeight="15720"/></bookViews>'
        f'<sheets>{sheet_list}</sheets>'
        '<calcPr calcId="191029"/>'
        '</workbook>'
    )
    rels = ''.join(
        f'<Relationship Id="rId{i}" Type="{REL}/worksheet" Target="worksheets/sheet{i}.xml"/>' for i in range(1, n + 1))
    workbook_rels = (
        f'{XML_HEAD}<Relationships xmlns="{PKG_REL}">{rels}'
        f'<Relationship Id="rId{n + 1}" Type="{REL}/styles" Target="styles.xml"/>'
        f'<Relationship Id="rId{n + 2}" Type="{REL}/sharedStrings" Target="sharedStrings.xml"/>'
        '</Relationships>'
    )
    core = (
        f'{XML_HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        '<dc:creator>Front desk</dc:creator><cp:lastModifiedBy>Front desk</cp:lastModifiedBy>'
        '<dcterms:created xsi:type="dcterms:W3CDTF">2030-04-28T15:02:11Z</dcterms:created>'
        '<dcterms:modified xsi:type="dcterms:W3CDTF">2030-04-29T09:12:40Z</dcterms:modified>'
        '</cp:coreProperties>'
    )
    titles = ''.join(f'<vt:lpstr>{escape(name)}</vt:lpstr>' for name, _ in sheets)
    app = (
        f'{XML_HEAD}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" '
        'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">'
        '<Application>Microsoft Excel</Application><DocSecurity>0</DocSecurity><ScaleCrop>false</ScaleCrop>'
        f'<TitlesOfParts><vt:vector size="{n}" baseType="lpstr">{titles}</vt:vector></TitlesOfParts>'
        '<AppVersion>16.0300</AppVersion></Properties>'
    )

    # Excel's order: the sheets come before styles.xml and sharedStrings.xml.
    parts = [('[Content_Types].xml', content_types), ('_rels/.rels', root_rels), ('xl/workbook.xml', workbook),
             ('xl/_rels/workbook.xml.rels', workbook_rels)]
    parts += [(f'xl/worksheets/sheet{i}.xml', sheet.xml(i == 1)) for i, (_, sheet) in enumerate(sheets, start=1)]
    parts += [('xl/styles.xml', STYLES), ('xl/sharedStrings.xml', strings.xml()), ('docProps/core.xml', core), ('docProps/app.xml', app)]
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        for name, text in parts:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # fixed: the same bytes every time
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text.encode('utf-8'))


def patients(out_dir):
    strings = SharedStrings()
    sheet = Sheet(strings)
    sheet.row(1, ['First Name', 'Last Name', 'Phone', 'Appointment Date', 'Appointment Time', 'Clinic Name', 'Provider Name'], style=BOLD)
    may = lambda day: date(2030, 5, day)  # noqa: E731
    # Phone numbers end in the digit that picks the sandbox's call outcome (docs/sandbox.md).
    sheet.row(2, ['Maria', 'Lopez', 4155550120, may(17), '09:30', 'North Clinic', 'Dr. Alvarez'])  # 0 confirmed
    sheet.row(3, ['James', 'Chen', 14155550121, ('date', may(17), DATE_MDY), '10:00', 'Bayview Clinic',
                  ('rich', [('Dr. ', False), ('Singh', True)])])  # 1 confirmed; 11 digits with the country code
    sheet.row(4, ['Aisha', 'Patel', '(415) 555-0122', may(18), '11:15', ('formula', '"Main"&" St"', 'Main St'), 'Dr. Reyes'])  # 2
    sheet.row(5, ['Robert', 'Okafor', 4155550125, ('date', may(18), DATE_MDY), '14:00', 'North Clinic', 'Dr. Alvarez'])  # 5 transferred
    sheet.row(6, [None, 'Novak', 4155550130, may(19), '09:00', 'Bayview Clinic', 'Dr. Singh'])  # broken: no first name
    sheet.row(7, ['David', 'Kim', 555012, may(19), '09:45', 'North Clinic', 'Dr. Reyes'])  # broken: too few digits
    sheet.row(8, [], empty_styled=4)  # formatted but empty: skipped
    sheet.row(9, ['Sofia', 'Rossi', 4155550131, ('text', '2030-02-30'), '10:30', 'North Clinic', 'Dr. Alvarez'])  # broken: no such day
    sheet.row(10, ['Michael', 'Brown', 4155550132, '17/05/2030', '11:00', 'Bayview Clinic', 'Dr. Singh'])  # broken: day first
    sheet.row(11, ['Grace', 'Nguyen', 4155550126, may(20), '13:30', 'Bayview Clinic', 'Dr. Singh'])  # 6 declined
    sheet.row(12, ['Daniel', 'Haddad', 4155550127, may(20), '15:00', 'North Clinic', 'Dr. Reyes'])  # 7 asks for a call back
    sheet.row(13, ['Ana', 'Silva', 4155550199, may(21), '09:15', 'North Clinic', 'Dr. Alvarez'])  # 99 opts out
    sheet.row(14, ['Omar', 'Farouk', 4155550124, may(21), ('time', 0.4375), 'Bayview Clinic', 'Dr. Reyes'])  # 4; a time cell: 10:30
    sheet.row(15, ['Lena', 'Novak', 4155550128, may(22), '16:00', 'North Clinic', 'Dr. Singh'])  # 8 line dropped
    sheet.row(16, ['Yuki', 'Tanaka', 4155550129, may(22), '16:30', 'Bayview Clinic', 'Dr. Alvarez'])  # 9 voicemail

    notes = Sheet(strings)
    notes.row(1, ['Notes'], style=BOLD)
    notes.row(2, [('text', 'Export from the scheduling system, week of May 17, 2030.')])
    notes.row(3, ['Rows without a first name: ask the front desk before uploading.'])
    notes.row(4, [('text', 'Reviewed by the front desk.')])
    write_workbook(os.path.join(out_dir, 'patients.xlsx'), [('Patients', sheet), ('Notes', notes)], strings)


def eligibility(out_dir):
    strings = SharedStrings()
    sheet = Sheet(strings)
    sheet.row(1, ['Patient ID', 'First Name', 'Last Name', 'DOB', 'Member ID', 'Payer', 'Provider Name', 'NPI'], style=BOLD)
    clinic, npi = 'Sandbox Family Clinic', 1234567893
    dob = lambda y, m, d: ('date', date(y, m, d), DATE_MDY)  # noqa: E731
    sheet.row(2, ['MRN-3001', 'Ana', 'Diaz', dob(1980, 4, 2), 'W100000001', 87726, clinic, npi])  # active
    sheet.row(3, ['MRN-3002', 'Ben', 'Okafor', date(1975, 3, 15), 'W100000000', 87726, clinic, npi])  # inactive (ends in 0)
    sheet.row(4, ['MRN-3003', 'Cara', 'Nguyen', dob(1990, 12, 1), 'NS100000003', 62308, clinic, npi])  # not supported
    sheet.row(5, ['MRN-3004', 'Dev', 'Patel', dob(1965, 8, 9), ('padded', 12345), 87726, clinic, npi])  # member id 000012345
    sheet.row(6, ['MRN-3005', 'Eve', 'Smith', ('text', '2999-01-01'), 'W100000005', 87726, clinic, npi])  # broken: born in the future
    write_workbook(os.path.join(out_dir, 'eligibility.xlsx'), [('Eligibility', sheet)], strings)


if __name__ == '__main__':
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures')
    patients(out)
    eligibility(out)
