"""DownloadData: the session-group table (one column per hparam and metric of the experiment) as CSV, JSON or LaTeX."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from typing import Any

from trainboard.errors import BadRequestError
from trainboard.plugins.hparams.experiment import full_experiment
from trainboard.plugins.hparams.memo import Remember, compute_now
from trainboard.plugins.hparams.session_groups import list_session_groups
from trainboard.provider.provider import DataProvider

FORMATS = ("csv", "json", "latex")
MEDIA_TYPES = {"csv": "text/csv", "json": "application/json", "latex": "application/x-latex"}

Cell = float | str | bool | None


def table(experiment_json: dict[str, Any], groups_json: dict[str, Any], visible: Sequence[Any]) -> dict[str, Any]:
    """{"header": [...], "rows": [[...]]}: hparams ("" when unset) then metrics (None when missing), keeping the
    columns whose entry in `visible` is true; columns past the end of `visible` are left out, as TensorBoard does."""
    hparam_infos = experiment_json.get("hparamInfos", [])
    metric_infos = experiment_json.get("metricInfos", [])
    header = [info.get("displayName") or info["name"] for info in hparam_infos]
    header += [info.get("displayName") or info["name"]["tag"] for info in metric_infos]
    rows = []
    for group in groups_json["sessionGroups"]:
        row: list[Cell] = [_cell(group["hparams"].get(info["name"])) for info in hparam_infos]
        values = {_metric_id(value["name"]): value["value"] for value in group["metricValues"]}
        row += [values.get(_metric_id(info["name"])) for info in metric_infos]
        rows.append(_visible(row, visible))
    return {"header": _visible(header, visible), "rows": rows}


def render(found: dict[str, Any], response_format: str) -> str | dict[str, Any]:
    if response_format == "json":
        return found
    if response_format == "csv":
        output = io.StringIO()
        writer = csv.writer(output)
        writer.writerow(found["header"])
        writer.writerows(found["rows"])
        return output.getvalue()
    if response_format == "latex":
        return _latex(found["header"], found["rows"])
    raise BadRequestError(f"Invalid reponses format: {response_format}")


def _latex(header: list[Cell], rows: list[list[Cell]]) -> str:
    lines = ["\\begin{table}[tbp]\n\\begin{tabular}{" + "l" * len(header) + "}\n"]
    lines.append(" & ".join(_latex_cell(cell) for cell in header) + " \\\\ \\hline\n")
    lines += [" & ".join(_latex_cell(cell) for cell in row) + " \\\\\n" for row in rows]
    lines.append("\\hline\n\\end{tabular}\n\\end{table}\n")
    return "".join(lines)


def _latex_cell(cell: Cell) -> str:
    if cell is None:
        return "-"
    if isinstance(cell, bool | int):
        return f"${int(cell)}$"
    if isinstance(cell, float):
        if math.isnan(cell):
            return r"$\mathrm{NaN}$"
        if math.isinf(cell):
            return "$-\\infty$" if cell < 0 else "$+\\infty$"
        scientific = f"{cell:.3g}"
        if "e" in scientific:
            coefficient, exponent = scientific.split("e")
            return f"${coefficient}\\cdot 10^{{{int(exponent)}}}$"
        return f"${scientific}$"
    return cell.replace("_", "\\_").replace("%", "\\%")


def _cell(value: Any) -> Cell:
    """An hparam's value; unset, or of a kind other than number, string and boolean, is empty."""
    return value if isinstance(value, float | str | bool) else ""


def _metric_id(name: dict[str, str]) -> str:
    return f"{name['group']}.{name['tag']}"


def _visible(cells: list[Cell], visible: Sequence[Any]) -> list[Cell]:
    return [cell for cell, shown in zip(cells, visible, strict=False) if shown]


def download_data(
    provider: DataProvider,
    experiment_id: str,
    request: Any,
    *,
    response_format: str,
    visible: Sequence[Any],
    remember: Remember = compute_now,
) -> str | dict[str, Any]:
    """The session groups a ListSessionGroupsRequest selects, as a table in `response_format`."""
    groups_json = list_session_groups(provider, experiment_id, request, remember)
    include_metrics = not request.HasField("include_metrics") or request.include_metrics
    return render(
        table(full_experiment(provider, experiment_id, include_metrics, remember), groups_json, visible),
        response_format,
    )
