"""Where event files keep an hparams session's start and end: its plugin's name and their tags. Apart from the messages
(`protos/hparams_pb2`), for the store, which looks for them in every batch it writes."""

HPARAMS_PLUGIN = "hparams"
SESSION_START_INFO_TAG = "_hparams_/session_start_info"
SESSION_END_INFO_TAG = "_hparams_/session_end_info"
