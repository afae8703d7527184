"""Teams' bot token goes only to Microsoft's service URLs: a validly signed activity whose serviceUrl names
another host (a replayed genuine token, or an Entra token from docbot's own tenant, which carries no
`serviceurl` claim) gets 401 and docbot calls nobody."""
import json
import time

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from microsoft_agents.hosting.core import OutboundHostValidator
from test_teams import _client, settled

from adapters.teams import SERVICE_URL_HOSTS, TeamsAdapter

from conftest import service_over
from connector_standin import message

APP_ID = "00000000-0000-0000-0000-0000000000aa"
TENANT = "11111111-2222-3333-4444-555555555555"
BOT_TOKEN = "bot-outbound-token-secret"


@pytest.fixture
def signer(monkeypatch):
    """Tokens signed with a key the SDK's validator trusts (its key download replaced), and the bot's own
    outbound token replaced by a recognisable one (no Entra call)."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
    from microsoft_agents.authentication.msal.msal_auth import MsalAuth
    from microsoft_agents.hosting.core.authorization.jwt import jwt_token_validator

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    async def signing_key(self, jwks_uri, header):
        return jwt.PyJWK.from_dict({**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key())),
                                    "kid": "k1", "alg": "RS256"})

    async def access_token(self, resource_url, scopes, force_refresh=False):
        return BOT_TOKEN

    monkeypatch.setattr(jwt_token_validator._JwkClientManager, "get_signing_key", signing_key)
    monkeypatch.setattr(MsalAuth, "get_access_token", access_token)

    def token(issuer: str, **claims) -> str:
        now = int(time.time())
        body = {"iss": issuer, "aud": APP_ID, "iat": now, "nbf": now, "exp": now + 600, **claims}
        return jwt.encode(body, key, algorithm="RS256", headers={"kid": "k1"})

    return token


@pytest.fixture
async def elsewhere():
    """A host that is not Microsoft's: records every request and its Authorization header."""
    seen: list[dict] = []

    async def record(request: web.Request) -> web.Response:
        seen.append({"path": request.path, "authorization": request.headers.get("Authorization")})
        return web.json_response({"id": "x"})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", record)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    server.seen = seen
    yield server
    await server.close()


@pytest.mark.parametrize("case", ["replayed genuine token", "own-tenant token without serviceurl"])
async def test_a_signed_activity_naming_a_foreign_service_url_is_refused_and_nothing_is_sent(
        case, signer, elsewhere, analyzer, embedder, classifier, tmp_path):
    service = service_over(tmp_path, analyzer, embedder, classifier, {"leave.md": "# Leave\n\n15 days a year.\n"})
    client = await _client(TeamsAdapter(service, app_id=APP_ID, app_password="pw", tenant_id=TENANT,
                                        update_every=0.0))
    if case == "replayed genuine token":  # Bot Framework's token, issued for Teams' own service URL
        token = signer("https://api.botframework.com", serviceurl="https://smba.trafficmanager.net/amer/")
    else:  # any app in docbot's tenant can get one; it names no service URL at all
        token = signer(f"https://login.microsoftonline.com/{TENANT}/v2.0", tid=TENANT)
    foreign = str(elsewhere.make_url("/"))
    try:
        response = await client.post("/api/messages", json=message("연차는 며칠이야?", foreign, activity_id="f-1"),
                                     headers={"Authorization": f"Bearer {token}"})
        assert response.status == 401
    finally:
        await settled(client.adapter)
        await client.close()
    assert elsewhere.seen == []  # and above all, no request carrying the bot token


def test_the_service_url_allow_list_is_microsofts_and_configurable_for_sovereign_clouds():
    service = None  # never reached: only the validator is looked at
    default = TeamsAdapter(service, app_id=APP_ID, app_password="pw").host_validator
    assert default is not None and default.enabled
    for url in ("https://smba.trafficmanager.net/amer/", "https://smba.infra.gov.teams.microsoft.us/teams",
                "https://smba.infra.dod.teams.microsoft.us/teams", "https://smba.infra.gcc.teams.microsoft.com/teams"):
        assert default.is_allowed(url), url
    for url in ("https://evil.example/", "http://smba.trafficmanager.net/amer/", "https://127.0.0.1:3978/",
                "https://smba.trafficmanager.net.evil.example/", "https://attacker.blob.core.windows.net/",
                "https://contoso.sharepoint.com/"):
        assert not default.is_allowed(url), url
    sovereign = TeamsAdapter(service, app_id=APP_ID, app_password="pw",
                             service_url_hosts=("smba.example-sovereign.cn",)).host_validator
    assert sovereign.is_allowed("https://smba.example-sovereign.cn/teams/")
    assert not sovereign.is_allowed("https://smba.trafficmanager.net/amer/")  # replaced, not added to


def standin_hosts(*origins: str) -> OutboundHostValidator:
    """Microsoft's allow-list plus the loopback connector stand-in's exact origin (the real validator refuses
    plain HTTP and loopback addresses, which is all a test can serve)."""
    real = OutboundHostValidator(list(SERVICE_URL_HOSTS), enabled=True, include_default_microsoft_hosts=False)

    class StandIn(OutboundHostValidator):
        def is_allowed(self, url) -> bool:
            return any(str(url).startswith(origin) for origin in origins) or real.is_allowed(url)

    return StandIn(enabled=True, include_default_microsoft_hosts=False)
