"""The Gemini provider, with the real google-genai SDK.

Structured output: response_mime_type="application/json" with response_json_schema.
The SDK's own retries are off (one attempt): the queue owns retries. The answer is
`response.text`, parsed by us; `.parsed` is never used. The key is passed to the
client and never logged; JOBHARBOR_LLM_BASE_URL points the SDK at a local endpoint.
"""

from __future__ import annotations

import logging
from typing import Any

from pipeline.enrich.policy import Failure, classify_http
from pipeline.enrich.provider import Call, ProviderError, Reply, Usage
from pipeline.enrich.settings import EnrichSettings
from pipeline.errors import ConfigError

log = logging.getLogger("jobharbor.enrich")


class GeminiProvider:
    name = "gemini"

    def __init__(self, settings: EnrichSettings) -> None:
        from google import genai
        from google.genai import types

        if settings.api_key is None:
            raise ConfigError(
                [
                    "enrichment needs a Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) "
                    "or define the Airflow connection jobharbor_gemini"
                ]
            )
        self.model = settings.model
        self._settings = settings
        self._types = types
        options = types.HttpOptions(
            base_url=settings.base_url,
            api_version="v1beta",
            timeout=int(settings.timeout_s * 1000),
            retry_options=types.HttpRetryOptions(attempts=1),
        )
        self._client = genai.Client(
            api_key=settings.api_key.get_secret_value(), http_options=options
        )

    def settings(self) -> dict[str, Any]:
        return {
            "temperature": self._settings.temperature,
            "max_output_tokens": self._settings.max_output_tokens,
            "response_mime_type": "application/json",
        }

    def generate(self, call: Call) -> Reply:
        from google.genai import errors

        config = self._types.GenerateContentConfig(
            system_instruction=call.system,
            response_mime_type="application/json",
            response_json_schema=call.schema,
            temperature=call.temperature,
            max_output_tokens=call.max_output_tokens,
        )
        try:
            response = self._client.models.generate_content(
                model=self.model, contents=call.prompt, config=config
            )
        except errors.APIError as exc:
            raise ProviderError(
                classify_http(int(exc.code or 0), exc.details, _message(exc))
            ) from exc
        except Exception as exc:  # transport: connection refused, reset, timeout
            if _is_transport(exc):
                raise ProviderError(Failure("transient", f"{type(exc).__name__}: {exc}")) from exc
            raise
        return _reply(response)


def _message(exc: Any) -> str:
    return f"{exc.code} {exc.status}: {exc.message}"[:500]


def _is_transport(exc: Exception) -> bool:
    module = type(exc).__module__.split(".")[0]
    return module in ("httpx", "httpx2", "httpcore", "httpcore2") or isinstance(
        exc, (ConnectionError, TimeoutError)
    )


def _reply(response: Any) -> Reply:
    meta = response.usage_metadata
    usage = Usage(
        prompt=(meta.prompt_token_count or 0) if meta else 0,
        candidates=(meta.candidates_token_count or 0) if meta else 0,
        thoughts=(meta.thoughts_token_count or 0) if meta else 0,
    )
    candidates = response.candidates or []
    finish = None
    if candidates and candidates[0].finish_reason is not None:
        reason = candidates[0].finish_reason
        finish = getattr(reason, "name", None) or str(reason)
    # `response.text` (the text parts, thoughts excluded), parsed by us, never `.parsed`.
    return Reply(response.text if candidates else None, finish, usage)
