"""An OpenAI-compatible chat-completions provider (vLLM, Ollama, llama.cpp server, ...).

Structured output with `response_format: {"type": "json_schema", ...}`; the answer is
`choices[0].message.content`, parsed and checked exactly like Gemini's. No retries
here: failures are classified (429 + Retry-After, 408/5xx, transport, 4xx) and the
queue decides. JOBHARBOR_LLM_BASE_URL is the server's API root (e.g.
http://127.0.0.1:8000/v1); a key, when the server wants one, is JOBHARBOR_LLM_API_KEY
or OPENAI_API_KEY and is never logged.
"""

from __future__ import annotations

from typing import Any

import httpx

from pipeline.enrich.policy import Failure, classify_http
from pipeline.enrich.provider import Call, ProviderError, Reply, Usage
from pipeline.enrich.settings import EnrichSettings, openai_api_key_from_environment
from pipeline.errors import ConfigError


class OpenAICompatProvider:
    name = "openai"

    def __init__(self, settings: EnrichSettings, client: httpx.Client | None = None) -> None:
        if not settings.base_url:
            raise ConfigError(
                ["JOBHARBOR_LLM_BASE_URL: the OpenAI-compatible server's API root is required"]
            )
        self.model = settings.model
        self._settings = settings
        self._url = settings.base_url.rstrip("/") + "/chat/completions"
        secret = settings.api_key or openai_api_key_from_environment()
        key = secret.get_secret_value() if secret else None
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = client or httpx.Client(headers=headers, timeout=settings.timeout_s)

    def settings(self) -> dict[str, Any]:
        return {
            "temperature": self._settings.temperature,
            "max_tokens": self._settings.max_output_tokens,
            "response_format": "json_schema",
        }

    def generate(self, call: Call) -> Reply:
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": call.system},
                {"role": "user", "content": call.prompt},
            ],
            "temperature": call.temperature,
            "max_tokens": call.max_output_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "enrichment", "schema": call.schema, "strict": True},
            },
        }
        try:
            response = self._client.post(self._url, json=body)
        except httpx.TransportError as exc:
            raise ProviderError(Failure("transient", f"{type(exc).__name__}: {exc}")) from exc
        if response.status_code != 200:
            raise ProviderError(_failure(response))
        return _reply(response.json())


def _failure(response: httpx.Response) -> Failure:
    try:
        body: Any = response.json()
    except ValueError:
        body = {}
    message = f"HTTP {response.status_code}: {response.text[:300]}"
    failure = classify_http(response.status_code, body, message)
    retry_after = response.headers.get("Retry-After")
    if failure.error_class == "rate_limited" and retry_after and retry_after.strip().isdigit():
        failure = Failure("rate_limited", message, response.status_code, float(retry_after))
    return failure


def _reply(payload: dict[str, Any]) -> Reply:
    usage = payload.get("usage") or {}
    details = usage.get("completion_tokens_details") or {}
    thoughts = int(details.get("reasoning_tokens") or 0)
    counted = Usage(
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0) - thoughts,
        thoughts,
    )
    choices = payload.get("choices") or []
    if not choices:
        return Reply(None, None, counted)
    finish = choices[0].get("finish_reason")
    text = (choices[0].get("message") or {}).get("content")
    return Reply(
        text, "MAX_TOKENS" if finish == "length" else (finish or "").upper() or None, counted
    )
