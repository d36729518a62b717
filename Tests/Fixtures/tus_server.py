"""A tus 1.0 server Lull did not write (tuspyserver on FastAPI/uvicorn), for interoperability tests.

usage: tus_server.py PORT FILES_DIR
"""
import sys

import uvicorn
from fastapi import FastAPI
from tuspyserver import create_tus_router

app = FastAPI()
app.include_router(create_tus_router(prefix="files", files_dir=sys.argv[2]))

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
