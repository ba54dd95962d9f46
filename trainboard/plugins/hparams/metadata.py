"""Where the hparams plugin's data lives: summary metadata of plugin "hparams", one `HParamsPluginData` per tag."""

from __future__ import annotations

from typing import Any

from google.protobuf.message import DecodeError

from trainboard.errors import BadRequestError
from trainboard.provider.provider import DataProvider
from trainboard.reader.protos.hparams_pb2 import HParamsPluginData

PLUGIN_NAME = "hparams"
PLUGIN_DATA_VERSION = 0
EXPERIMENT_TAG = "_hparams_/experiment"
SESSION_START_INFO_TAG = "_hparams_/session_start_info"
SESSION_END_INFO_TAG = "_hparams_/session_end_info"

# run -> tag -> the plugin content of the tag's first summary metadata.
Contents = dict[str, dict[str, bytes]]


def hparams_contents(provider: DataProvider, experiment_id: str) -> Contents:
    """The hparams summaries of every run, in the provider's order (parents before their subdirectories, as
    TensorBoard's directory walk)."""
    listed = provider.list_tensors(experiment_id=experiment_id, plugin_name=PLUGIN_NAME)
    return {run: {tag: series.plugin_content for tag, series in by_tag.items()} for run, by_tag in listed.items()}


def parse_plugin_data(content: bytes, kind: str) -> Any:
    """The `kind` member (experiment, session_start_info or session_end_info) of serialized HParamsPluginData."""
    try:
        data = HParamsPluginData.FromString(content)
    except DecodeError:
        raise BadRequestError(f"HParams plugin data is no HParamsPluginData message (expected {kind})") from None
    if data.version != PLUGIN_DATA_VERSION:
        raise BadRequestError(f"Only supports plugin_data version: {PLUGIN_DATA_VERSION}; found: {data.version}")
    if data.WhichOneof("data") != kind:
        raise BadRequestError(f"Expected plugin_data.{kind} to be set, not {data.WhichOneof('data')}")
    return getattr(data, kind)
