"""`jobharbor web`: serve the app as the read-only web role."""

from __future__ import annotations

from pipeline.errors import ConfigError
from web.settings import WebSettings


def resolve_reader_url(settings: WebSettings) -> str:
    """The reader URL: given outright, or the serving database as `jobharbor_web` with
    the password from the environment. With neither and the embedded cluster, a
    password is generated once (0600 file) and provisioned, so nobody sets it by hand."""
    if settings.serving_reader_url is not None:
        return settings.serving_reader_url.get_secret_value()
    from pipeline.app import resolve_serving
    from pipeline.db.connect import Database
    from pipeline.settings import load_settings
    from serving_sync import roles
    from serving_sync import schema as serving_schema

    serving = resolve_serving(load_settings())
    if settings.web_db_password is not None:
        # `jobharbor db up` set this password on the role; only the address is needed here.
        return roles.reader_url(serving.url, settings.web_db_password.get_secret_value())
    if serving.cluster_dir is None:
        raise ConfigError(
            f"set {roles.READER_URL_ENV}, or {roles.PASSWORD_ENV} and run `jobharbor db up`"
        )
    # Kept beside the cluster the role lives in (the separate serving one, if used).
    password = roles.generated_password(serving.cluster_dir)
    owner = Database(serving.url)
    serving_schema.upgrade(owner)
    roles.provision_web_role(owner, password)
    return roles.reader_url(serving.url, password)


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    import uvicorn

    from web.app import create_app

    settings = WebSettings()
    app = create_app(resolve_reader_url(settings), settings)
    uvicorn.run(app, host=host, port=port, proxy_headers=False)
