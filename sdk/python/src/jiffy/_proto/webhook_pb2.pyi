from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class _WebhookId(_message.Message):
    __slots__ = ("cache_name", "webhook_name")
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_NAME_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    webhook_name: str
    def __init__(self, cache_name: _Optional[str] = ..., webhook_name: _Optional[str] = ...) -> None: ...

class _Webhook(_message.Message):
    __slots__ = ("webhook_id", "topic_name", "destination")
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    TOPIC_NAME_FIELD_NUMBER: _ClassVar[int]
    DESTINATION_FIELD_NUMBER: _ClassVar[int]
    webhook_id: _WebhookId
    topic_name: str
    destination: _WebhookDestination
    def __init__(self, webhook_id: _Optional[_Union[_WebhookId, _Mapping]] = ..., topic_name: _Optional[str] = ..., destination: _Optional[_Union[_WebhookDestination, _Mapping]] = ...) -> None: ...

class _PutWebhookRequest(_message.Message):
    __slots__ = ("webhook",)
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    webhook: _Webhook
    def __init__(self, webhook: _Optional[_Union[_Webhook, _Mapping]] = ...) -> None: ...

class _PutWebhookResponse(_message.Message):
    __slots__ = ("secret_string",)
    SECRET_STRING_FIELD_NUMBER: _ClassVar[int]
    secret_string: str
    def __init__(self, secret_string: _Optional[str] = ...) -> None: ...

class _DeleteWebhookRequest(_message.Message):
    __slots__ = ("webhook_id",)
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    webhook_id: _WebhookId
    def __init__(self, webhook_id: _Optional[_Union[_WebhookId, _Mapping]] = ...) -> None: ...

class _DeleteWebhookResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class _ListWebhookRequest(_message.Message):
    __slots__ = ("cache_name",)
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    def __init__(self, cache_name: _Optional[str] = ...) -> None: ...

class _ListWebhooksResponse(_message.Message):
    __slots__ = ("webhook",)
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    webhook: _containers.RepeatedCompositeFieldContainer[_Webhook]
    def __init__(self, webhook: _Optional[_Iterable[_Union[_Webhook, _Mapping]]] = ...) -> None: ...

class _GetWebhookSecretRequest(_message.Message):
    __slots__ = ("cache_name", "webhook_name")
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_NAME_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    webhook_name: str
    def __init__(self, cache_name: _Optional[str] = ..., webhook_name: _Optional[str] = ...) -> None: ...

class _GetWebhookSecretResponse(_message.Message):
    __slots__ = ("cache_name", "webhook_name", "secret_string")
    CACHE_NAME_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_NAME_FIELD_NUMBER: _ClassVar[int]
    SECRET_STRING_FIELD_NUMBER: _ClassVar[int]
    cache_name: str
    webhook_name: str
    secret_string: str
    def __init__(self, cache_name: _Optional[str] = ..., webhook_name: _Optional[str] = ..., secret_string: _Optional[str] = ...) -> None: ...

class _WebhookDestination(_message.Message):
    __slots__ = ("post_url",)
    POST_URL_FIELD_NUMBER: _ClassVar[int]
    post_url: str
    def __init__(self, post_url: _Optional[str] = ...) -> None: ...

class _RotateWebhookSecretRequest(_message.Message):
    __slots__ = ("webhook_id",)
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    webhook_id: _WebhookId
    def __init__(self, webhook_id: _Optional[_Union[_WebhookId, _Mapping]] = ...) -> None: ...

class _RotateWebhookSecretResponse(_message.Message):
    __slots__ = ("secret_string",)
    SECRET_STRING_FIELD_NUMBER: _ClassVar[int]
    secret_string: str
    def __init__(self, secret_string: _Optional[str] = ...) -> None: ...
