"""What a reader sees when the workbook opens: the Summary sheet's first screen.

A decision maker opens ``report.xlsx`` and reads what fits on the screen before
scrolling. :func:`visible` lays the sheet out as a spreadsheet program does
(column widths in characters, default row height) and returns the cells inside
a window of ``width`` × ``height`` pixels, so a test can check that the verdict
and the verdict table are there. :func:`render` draws that window to a PNG for
the documentation (it needs Pillow, the ``docs`` extra); no spreadsheet
program is needed, which is what makes the picture reproducible in CI.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

ROW_PX = 20  # a default 15-point row
HEADER_PX = 20  # the column letters and row numbers a spreadsheet program draws
DEFAULT_WIDTH = 8.43  # characters, a spreadsheet's default column width


def _col_px(ws: Worksheet, index: int) -> int:
    width = ws.column_dimensions[get_column_letter(index)].width or DEFAULT_WIDTH
    return int(width * 7 + 5)


def _row_px(ws: Worksheet, index: int) -> int:
    height = ws.row_dimensions[index].height
    return int(height * 4 / 3) if height else ROW_PX


@dataclass(frozen=True)
class Cell:
    row: int
    column: int
    x: int
    y: int
    width: int
    height: int
    text: str
    source: Any  # the openpyxl cell, for its style


def shown(value: Any, number_format: str) -> str:
    """A cell's value as a spreadsheet shows it (the formats the reports use)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        if "%" in number_format:
            decimals = number_format.split(".")[1].count("0") if "." in number_format else 0
            return f"{value * 100:.{decimals}f}%"
        if "." in number_format and "0" in number_format:
            return f"{value:.{number_format.split('.')[1].count('0')}f}"
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    return str(value)


def visible(ws: Worksheet, width: int = 1280, height: int = 720) -> list[Cell]:
    """The non-empty cells inside the first ``width`` × ``height`` pixels of the sheet."""
    cells = []
    y = HEADER_PX
    row = 1
    while y < height and row <= max(ws.max_row, 1):
        row_height = _row_px(ws, row)
        x = HEADER_PX + 20
        column = 1
        while x < width and column <= max(ws.max_column, 1):
            col_width = _col_px(ws, column)
            c = ws.cell(row=row, column=column)
            text = shown(c.value, c.number_format)
            if text:
                cells.append(Cell(row, column, x, y, col_width, row_height, text, c))
            x += col_width
            column += 1
        y += row_height
        row += 1
    return cells


def render(workbook: Path, out: Path, sheet: str = "Summary", width: int = 1280, height: int = 720) -> Path:
    """Draw the first screen of ``sheet`` to ``out`` (PNG)."""
    from openpyxl import load_workbook
    from PIL import Image, ImageDraw, ImageFont

    ws = load_workbook(workbook)[sheet]
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    fonts = "/usr/share/fonts/truetype/dejavu/"
    regular = ImageFont.truetype(fonts + "DejaVuSans.ttf", 12)
    grid, header_fill = (218, 220, 224), (243, 243, 243)
    draw.rectangle((0, 0, width, HEADER_PX), fill=header_fill)
    draw.rectangle((0, 0, HEADER_PX + 20, height), fill=header_fill)
    x, column = HEADER_PX + 20, 1
    while x < width:
        w = _col_px(ws, column)
        draw.line((x, 0, x, height), fill=grid)
        draw.text((x + w // 2 - 4, 3), get_column_letter(column), fill="gray", font=regular)
        x, column = x + w, column + 1
    y, row = HEADER_PX, 1
    while y < height:
        h = _row_px(ws, row)
        draw.line((0, y, width, y), fill=grid)
        draw.text((8, y + 3), str(row), fill="gray", font=regular)
        y, row = y + h, row + 1
    for cell in visible(ws, width, height):
        style = cell.source
        fill = style.fill.fgColor.rgb if style.fill and style.fill.fill_type == "solid" else None
        if isinstance(fill, str) and len(fill) == 8 and fill != "00000000":
            draw.rectangle((cell.x + 1, cell.y + 1, cell.x + cell.width - 1, cell.y + cell.height - 1),
                           fill="#" + fill[2:])
        color = style.font.color.rgb if style.font and style.font.color is not None else None
        ink = "#" + color[2:] if isinstance(color, str) and len(color) == 8 else "black"
        size = int(style.font.sz or 11) if style.font else 11
        font = ImageFont.truetype(fonts + ("DejaVuSans-Bold.ttf" if style.font and style.font.b else "DejaVuSans.ttf"),
                                  max(10, size + 1))
        text = cell.text
        right = style.alignment.horizontal == "right" or (
            style.alignment.horizontal is None and isinstance(style.value, (int, float)))
        length = draw.textlength(text, font=font)
        tx = cell.x + cell.width - 4 - length if right and length < cell.width else cell.x + 4
        draw.text((tx, cell.y + (cell.height - size) // 2 - 1), text, fill=ink, font=font)
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out)
    return out


def main() -> None:  # python -m langbite.report.firstscreen RUN/report.xlsx docs/images/report-first-screen.png
    import sys

    sys.stdout.write(f"{render(Path(sys.argv[1]), Path(sys.argv[2]))}\n")


if __name__ == "__main__":
    main()
