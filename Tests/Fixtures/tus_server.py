"""A tus 1.0 server Lull did not write (tuspyserver on FastAPI/uvicorn), for interoperability tests.

usage: tus_server.py PORT FILES_DIR [MAX_SIZE]

MAX_SIZE: the largest upload the server accepts (its Tus-Max-Size); tuspyserver's default when left out.
"""
import sys

import uvicorn
from fastapi import FastAPI
from tuspyserver import create_tus_router

app = FastAPI()
limits = {"max_size": int(sys.argv[3])} if len(sys.argv) > 3 else {}
app.include_router(create_tus_router(prefix="files", files_dir=sys.argv[2], **limits))

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
