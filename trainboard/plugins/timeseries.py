"""The Time Series dashboard: one listing of scalars, histograms and images, and batched series requests."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from trainboard.plugins import histograms, images, scalars
from trainboard.plugins.markdown import markdown_to_safe_html
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import BlobSequenceTimeSeries, RunTagFilter, TimeSeries

PLUGIN_NAME = "timeseries"
# Plugins whose requests name one run, and those whose requests name one sample.
SINGLE_RUN_PLUGINS = (histograms.PLUGIN_NAME, images.PLUGIN_NAME)
SAMPLED_PLUGINS = (images.PLUGIN_NAME,)
DEFAULT_SAMPLES = {scalars.PLUGIN_NAME: 1000, histograms.PLUGIN_NAME: 51, images.PLUGIN_NAME: 10}

Listing = Mapping[str, Mapping[str, TimeSeries | BlobSequenceTimeSeries]]


def tags(provider: DataProvider, experiment_id: str) -> dict[str, Any]:
    scalar_listing = provider.list_scalars(experiment_id=experiment_id, plugin_name=scalars.PLUGIN_NAME)
    histogram_listing = provider.list_tensors(experiment_id=experiment_id, plugin_name=histograms.PLUGIN_NAME)
    image_listing = provider.list_blob_sequences(experiment_id=experiment_id, plugin_name=images.PLUGIN_NAME)
    image_info: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    for run, by_tag in image_listing.items():
        for tag, series in by_tag.items():
            image_info[tag][run] = {"maxSamplesPerStep": series.max_length - 2}  # width and height come first
    return {
        "scalars": _run_tags(scalar_listing),
        "histograms": _run_tags(histogram_listing),
        "images": {"tagDescriptions": _tag_descriptions(image_listing), "tagRunSampledInfo": dict(image_info)},
    }


def _run_tags(listing: Listing) -> dict[str, Any]:
    return {
        "runTagInfo": {run: sorted(by_tag) for run, by_tag in listing.items()},
        "tagDescriptions": _tag_descriptions(listing),
    }


def _tag_descriptions(listing: Listing) -> dict[str, str]:
    """Each tag's description as HTML; a tag that runs describe differently gets every description, by run."""
    descriptions: dict[str, set[str]] = defaultdict(set)
    runs_by_description: dict[str, set[str]] = defaultdict(set)
    for run, by_tag in listing.items():
        for tag, series in by_tag.items():
            if series.description:
                descriptions[tag].add(series.description)
                runs_by_description[series.description].add(run)
    result = {}
    for tag, found in descriptions.items():
        ordered = sorted(found)
        if len(ordered) == 1:
            text = ordered[0]
        else:
            parts = []
            for description in ordered:
                runs = sorted(runs_by_description[description])
                parts.append(f"## For {'runs' if len(runs) > 1 else 'run'}: {', '.join(runs)}\n{description}")
            text = "# Multiple descriptions\n" + "\n".join(parts)
        result[tag] = markdown_to_safe_html(text)
    return result


def time_series(
    provider: DataProvider, experiment_id: str, request: Any, samples: Mapping[str, int | None]
) -> dict[str, Any]:
    """The answer to one request of the dashboard; a malformed request gets an `error` in its answer."""
    if not isinstance(request, dict):
        return {"plugin": None, "tag": None, "error": "Missing tag"}
    tag, run, plugin, sample = (request.get(key) for key in ("tag", "run", "plugin", "sample"))
    response: dict[str, Any] = {"plugin": plugin, "tag": tag}
    if isinstance(run, str):
        response["run"] = run
    if isinstance(sample, int):
        response["sample"] = sample
    error = _request_error(tag, run, plugin, sample)
    if error:
        return {**response, "error": error}
    assert isinstance(tag, str) and isinstance(plugin, str)
    selection = RunTagFilter.of([run] if isinstance(run, str) and run else None, [tag])
    downsample = samples[plugin]
    if plugin == scalars.PLUGIN_NAME:
        found_scalars = provider.read_scalars(
            experiment_id=experiment_id, plugin_name=plugin, downsample=downsample, run_tag_filter=selection
        )
        response["runToSeries"] = {
            run: [{"wallTime": d.wall_time, "step": d.step, "value": d.value} for d in by_tag[tag]]
            for run, by_tag in found_scalars.items()
            if tag in by_tag
        }
    elif plugin == histograms.PLUGIN_NAME:
        found_tensors = provider.read_tensors(
            experiment_id=experiment_id, plugin_name=plugin, downsample=downsample, run_tag_filter=selection
        )
        response["runToSeries"] = {
            run: [
                {
                    "wallTime": d.wall_time,
                    "step": d.step,
                    "bins": [{"min": low, "max": high, "count": count} for low, high, count in d.numpy.tolist()],
                }
                for d in by_tag[tag]
            ]
            for run, by_tag in found_tensors.items()
            if tag in by_tag
        }
    else:
        assert isinstance(sample, int)
        found_blobs = provider.read_blob_sequences(
            experiment_id=experiment_id, plugin_name=plugin, downsample=downsample, run_tag_filter=selection
        )
        image_series = {
            run: [
                {"step": d.step, "wallTime": d.wall_time, "imageId": d.values[sample + 2].blob_key}
                for d in by_tag[tag]
                if len(d.values) > sample + 2
            ]
            for run, by_tag in found_blobs.items()
            if tag in by_tag
        }
        response["runToSeries"] = {run: points for run, points in image_series.items() if points}
    return response


def _request_error(tag: object, run: object, plugin: object, sample: object) -> str | None:
    if not isinstance(tag, str):
        return "Missing tag"
    if plugin not in DEFAULT_SAMPLES:
        return "Invalid plugin"
    if plugin in SINGLE_RUN_PLUGINS and not isinstance(run, str):
        return "Missing run"
    if plugin in SAMPLED_PLUGINS and not isinstance(sample, int):
        return "Missing sample"
    return None
