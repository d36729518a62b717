"""A forward proxy for tests that speaks CONNECT (what AsyncHTTPClient sends to a proxy) and
sends every tunnel to one fixed upstream, whatever host was asked for, so a test can fetch a
name that resolves nowhere. Each CONNECT target and its headers are appended to LOG as one JSON
line. Given USER:PASSWORD, a tunnel is opened only for a CONNECT carrying them as
`Proxy-Authorization: Basic`; any other gets 407.
usage: connect_proxy.py PORT_FILE UPSTREAM_PORT LOG [USER:PASSWORD]"""
import asyncio
import base64
import json
import sys

port_file, upstream_port, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
required = sys.argv[4] if len(sys.argv) > 4 else None


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def handle(reader, writer):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
    with open(log_path, "a") as log:
        log.write(json.dumps({"method": method, "target": target, "headers": headers}) + "\n")
    if method != "CONNECT":
        writer.write(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        await writer.drain()
        writer.close()
        return
    if required is not None and headers.get("proxy-authorization") != "Basic " + base64.b64encode(required.encode()).decode():
        writer.write(b'HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="test"\r\n'
                     b"content-length: 0\r\nconnection: close\r\n\r\n")
        await writer.drain()
        writer.close()
        return
    up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
    writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
    await writer.drain()
    await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    with open(port_file, "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    async with server:
        await server.serve_forever()


asyncio.run(main())
