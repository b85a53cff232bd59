"""A local endpoint speaking the Gemini REST API (generateContent), for tests and the demo.

  POST /v1beta/models/{model}:generateContent     real-shaped bodies: candidates with
       finishReason, usageMetadata (prompt, candidates, thoughts), errors with
       google.rpc.QuotaFailure and google.rpc.RetryInfo details
  POST /_sandbox/gemini   {"mode": M, "script": [...]}   how to answer (see MODES);
       each script entry answers one request, then the mode applies again:
       {"status": 429, "retry_delay": "2s"} | {"status": 429, "per_day": true} |
       {"status": 500} | {"status": 400} | {"mode": "malformed_json"} ...
  GET  /_sandbox/gemini/log    every generateContent received (time, status, tokens, ids)
  POST /_sandbox/gemini/reset

The truthful answerer is the project's rules baseline, so answers are right by
construction; the adversarial modes are what a wrong model does.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sandbox.routing import Format, Reply, Request

FORMAT = Format("gemini")
_POSTING = re.compile(r'<posting id="([^"]+)">\n(.*?)\n</posting>', re.S)
THOUGHTS = 3  # every answer "thinks" a little: budgets must count thoughts too
VALUE_MODES = (  # as pipeline.enrich.adversarial.VALUE_MODES
    "hallucinated_excerpt",
    "unsupported_value",
    "out_of_range",
    "min_gt_max",
    "enum_outside_schema",
    "unsupported_skill",
)
MODES = (
    "truthful",
    *VALUE_MODES,
    "adversarial",  # each posting gets one of VALUE_MODES in turn
    "malformed_json",
    "empty_candidate",
    "max_tokens",
    "wrong_id",
    "missing_id",
    "one_invalid",
)


@dataclass
class GeminiStub:
    mode: str = "truthful"
    script: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    turn: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_step(self) -> dict[str, Any]:
        with self.lock:
            self.turn += 1
            return self.script.pop(0) if self.script else {"mode": self.mode}


def stub(request: Request) -> GeminiStub:
    with request.state.lock:
        existing = getattr(request.state, "gemini", None)
        if existing is None:
            existing = GeminiStub()
            request.state.gemini = existing  # type: ignore[attr-defined]
        return existing


# ---------------------------------------------------------------- answers


def _truthful(pid: str, text: str) -> dict[str, Any]:
    from pipeline.enrich.catalog import load_catalog
    from pipeline.enrich.rules import baseline

    return baseline(text, load_catalog(), pid)


def _adversarial(mode: str, pid: str, text: str) -> dict[str, Any]:
    from pipeline.enrich.adversarial import adversarial_answer

    return adversarial_answer(mode, pid, text)


def _answers(mode: str, postings: list[tuple[str, str]], turn: int) -> list[dict[str, Any]]:
    if mode == "adversarial":
        return [
            _adversarial(VALUE_MODES[(turn + i) % len(VALUE_MODES)], pid, text)
            for i, (pid, text) in enumerate(postings)
        ]
    if mode in VALUE_MODES:
        return [_adversarial(mode, pid, text) for pid, text in postings]
    answers = [_truthful(pid, text) for pid, text in postings]
    if mode == "wrong_id" and answers:
        answers[0]["posting_id"] = "999999999"
    elif mode == "missing_id" and answers:
        answers.pop()
    elif mode == "one_invalid" and answers:
        answers[0]["experience_min"] = {"evidence": "five", "value": "five"}
    return answers


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def _success(model: str, text: str | None, finish: str, prompt_tokens: int) -> dict[str, Any]:
    candidate: dict[str, Any] = {"finishReason": finish, "index": 0}
    if text is not None:
        candidate["content"] = {"parts": [{"text": text}], "role": "model"}
    out = _tokens(text or "") if text else 0
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": out,
            "thoughtsTokenCount": THOUGHTS,
            "totalTokenCount": prompt_tokens + out + THOUGHTS,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt_tokens}],
        },
        "modelVersion": model,
        "responseId": f"sandbox-{time.monotonic_ns()}",
    }


def _error(status: int, model: str, step: dict[str, Any]) -> dict[str, Any]:
    names = {
        400: "INVALID_ARGUMENT",
        403: "PERMISSION_DENIED",
        404: "NOT_FOUND",
        429: "RESOURCE_EXHAUSTED",
        500: "INTERNAL",
        503: "UNAVAILABLE",
    }
    error: dict[str, Any] = {
        "code": status,
        "message": step.get("message", f"sandbox {status}"),
        "status": names.get(status, "UNKNOWN"),
    }
    if status == 429:
        per = "PerDay" if step.get("per_day") else "PerMinute"
        error["message"] = (
            "You exceeded your current quota, please check your plan and billing details."
        )
        error["details"] = [
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [
                    {
                        "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "quotaId": f"GenerateRequests{per}PerProjectPerModel-FreeTier",
                        "quotaDimensions": {"location": "global", "model": model},
                        "quotaValue": "10",
                    }
                ],
            },
            {
                "@type": "type.googleapis.com/google.rpc.Help",
                "links": [
                    {
                        "description": "Learn more about Gemini API quotas",
                        "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
                    }
                ],
            },
        ]
        if not step.get("per_day"):
            error["details"].append(
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": step.get("retry_delay", "1s"),
                }
            )
    return {"error": error}


def _prompt_of(body: dict[str, Any]) -> tuple[str, str]:
    system = " ".join(
        p.get("text", "") for p in (body.get("systemInstruction") or {}).get("parts", [])
    )
    prompt = " ".join(
        p.get("text", "") for c in body.get("contents", []) for p in c.get("parts", [])
    )
    return system, prompt


@FORMAT.post(r"/v1(?:beta)?/models/(?P<model>[^/:]+):generateContent")
def generate_content(request: Request) -> Reply:
    model = request.match.group("model")
    state = stub(request)
    arrived = time.monotonic()
    if not (request.headers.get("x-goog-api-key") or request.arg("key")):
        return Reply(
            403,
            json.dumps(
                _error(403, model, {"message": "Method doesn't allow unregistered callers."})
            ).encode(),
        )
    body = json.loads(request.body or b"{}")
    system, prompt = _prompt_of(body)
    postings = [(m.group(1), m.group(2)) for m in _POSTING.finditer(prompt)]
    prompt_tokens = _tokens(system + prompt)
    step = state.next_step()
    status = int(step.get("status", 200))
    schema = (body.get("generationConfig") or {}).get("responseJsonSchema") or {}
    entry = {
        "schema_ids": _schema_ids(schema),
        "reask": "previous answer" in prompt,
        "at": arrived,
        "model": model,
        "status": status,
        "postings": [p for p, _ in postings],
        "prompt_tokens": prompt_tokens,
        "candidates_tokens": 0,
        "thoughts_tokens": 0,
    }
    if status != 200:
        with state.lock:
            state.log.append(entry)
        return Reply(status, json.dumps(_error(status, model, step)).encode())
    if "text" in step:  # a scripted candidate text, verbatim
        payload = _success(model, step["text"], step.get("finish", "STOP"), prompt_tokens)
    else:
        payload = _answer(step.get("mode", state.mode), model, postings, state.turn, prompt_tokens)
    usage = payload["usageMetadata"]
    entry.update(
        candidates_tokens=usage["candidatesTokenCount"], thoughts_tokens=usage["thoughtsTokenCount"]
    )
    with state.lock:
        state.log.append(entry)
    return Reply(200, json.dumps(payload, ensure_ascii=False).encode())


def _schema_ids(schema: dict[str, Any]) -> list[str] | None:
    try:
        return schema["properties"]["postings"]["items"]["properties"]["posting_id"]["enum"]
    except (KeyError, TypeError):
        return None


def _answer(
    mode: str, model: str, postings: list[tuple[str, str]], turn: int, prompt_tokens: int
) -> dict[str, Any]:
    if mode == "malformed_json":
        return _success(model, '{"postings": [{"posting_id": ', "STOP", prompt_tokens)
    if mode == "empty_candidate":
        return _success(model, None, "SAFETY", prompt_tokens)
    text = json.dumps({"postings": _answers(mode, postings, turn)}, ensure_ascii=False)
    if mode == "max_tokens":
        return _success(model, text[: len(text) // 2], "MAX_TOKENS", prompt_tokens)
    return _success(model, text, "STOP", prompt_tokens)


@FORMAT.post(r"/_sandbox/gemini")
def admin_gemini(request: Request) -> Reply:
    data = json.loads(request.body or b"{}")
    mode = data.get("mode", "truthful")
    if mode not in MODES:
        return Reply(400, json.dumps({"error": f"mode must be one of {list(MODES)}"}).encode())
    state = stub(request)
    with state.lock:
        state.mode = mode
        state.script = list(data.get("script", []))
    return Reply(200, json.dumps({"mode": mode, "script": len(state.script)}).encode())


@FORMAT.get(r"/_sandbox/gemini/log")
def admin_gemini_log(request: Request) -> Reply:
    state = stub(request)
    with state.lock:
        entries = list(state.log)
    return Reply(200, json.dumps({"now": time.monotonic(), "requests": entries}).encode())


@FORMAT.post(r"/_sandbox/gemini/reset")
def admin_gemini_reset(request: Request) -> Reply:
    state = stub(request)
    with state.lock:
        state.mode, state.script, state.log, state.turn = "truthful", [], [], 0
    return Reply(200, b'{"reset": true}')


# ---------------------------------------------------------------- OpenAI-compatible

_FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter"}


@FORMAT.post(r"/v1/chat/completions")
def chat_completions(request: Request) -> Reply:
    """The same answerer behind the OpenAI chat-completions shape (vLLM, Ollama, ...)."""
    state = stub(request)
    arrived = time.monotonic()
    body = json.loads(request.body or b"{}")
    messages = body.get("messages") or []
    system = " ".join(m.get("content", "") for m in messages if m.get("role") == "system")
    prompt = " ".join(m.get("content", "") for m in messages if m.get("role") == "user")
    postings = [(m.group(1), m.group(2)) for m in _POSTING.finditer(prompt)]
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    prompt_tokens = _tokens(system + prompt)
    step = state.next_step()
    status = int(step.get("status", 200))
    entry = {
        "schema_ids": _schema_ids(schema),
        "reask": "previous answer" in prompt,
        "at": arrived,
        "model": body.get("model"),
        "status": status,
        "postings": [p for p, _ in postings],
        "prompt_tokens": prompt_tokens,
        "candidates_tokens": 0,
        "thoughts_tokens": 0,
    }
    if status != 200:
        with state.lock:
            state.log.append(entry)
        delay = str(step.get("retry_delay", "1s")).rstrip("s")
        headers = (("Retry-After", str(int(float(delay)))),) if status == 429 else ()
        error = {
            "error": {
                "message": f"sandbox {status}",
                "type": "rate_limit_exceeded" if status == 429 else "server_error",
            }
        }
        return Reply(status, json.dumps(error).encode(), headers=headers)
    if "text" in step:
        payload = _success(
            str(body.get("model")), step["text"], step.get("finish", "STOP"), prompt_tokens
        )
    else:
        payload = _answer(
            step.get("mode", state.mode),
            str(body.get("model")),
            postings,
            state.turn,
            prompt_tokens,
        )
    return Reply(200, json.dumps(_as_chat(payload, entry, state), ensure_ascii=False).encode())


def _as_chat(payload: dict[str, Any], entry: dict[str, Any], state: GeminiStub) -> dict[str, Any]:
    candidate = payload["candidates"][0]
    parts = (candidate.get("content") or {}).get("parts") or []
    usage = payload["usageMetadata"]
    entry.update(
        candidates_tokens=usage["candidatesTokenCount"], thoughts_tokens=usage["thoughtsTokenCount"]
    )
    with state.lock:
        state.log.append(entry)
    return {
        "id": payload["responseId"],
        "object": "chat.completion",
        "model": payload["modelVersion"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": parts[0]["text"] if parts else None},
                "finish_reason": _FINISH.get(candidate["finishReason"], "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": usage["promptTokenCount"],
            "completion_tokens": usage["candidatesTokenCount"] + usage["thoughtsTokenCount"],
            "total_tokens": usage["totalTokenCount"],
            "completion_tokens_details": {"reasoning_tokens": usage["thoughtsTokenCount"]},
        },
    }
