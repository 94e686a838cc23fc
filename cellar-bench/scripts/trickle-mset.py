#!/usr/bin/env python3
"""A 200,000-argument MSET (100,000 keys) sent in 50-byte writes to a server on 127.0.0.1, while
another client PINGs every 10 ms: prints the server's CPU time for the request (from /proc) and the
PING latencies. Usage: trickle-mset.py PORT SERVER_PID [piece-bytes [pause-us]]: the pause
between writes (default 50 µs) keeps loopback from joining the pieces into large reads. Run it against Cellar and
against redis-server in turn (docs/benchmarks.md, "Hostile clients")."""
import socket, sys, time, threading, os
port=int(sys.argv[1]); pid=int(sys.argv[2]); piece=int(sys.argv[3]) if len(sys.argv)>3 else 50
pause=(int(sys.argv[4]) if len(sys.argv)>4 else 50)/1e6
def cpu(pid):
    f=open(f"/proc/{pid}/stat").read().rsplit(")",1)[1].split()
    return (int(f[11])+int(f[12]))/os.sysconf('SC_CLK_TCK')
pairs=100000
parts=[b"*%d\r\n$4\r\nMSET\r\n"%(1+2*pairs)]
for i in range(pairs):
    k=b"key:%d"%i
    parts.append(b"$%d\r\n%s\r\n$1\r\nv\r\n"%(len(k),k))
data=b"".join(parts)
lat=[]; stop=False
def pinger():
    s=socket.create_connection(("127.0.0.1",port)); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while not stop:
        t=time.perf_counter(); s.sendall(b"PING\r\n"); s.recv(100); lat.append(time.perf_counter()-t); time.sleep(0.01)
th=threading.Thread(target=pinger); th.start()
s=socket.create_connection(("127.0.0.1",port)); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
c0=cpu(pid); t0=time.time()
for i in range(0,len(data),piece):
    s.sendall(data[i:i+piece])
    until=time.perf_counter()+pause
    while time.perf_counter()<until:
        pass
r=s.recv(10); c1=cpu(pid); t1=time.time()
stop=True; th.join()
lat.sort()
print(f"reply {r!r} bytes {len(data)} wall {t1-t0:.1f}s server CPU {c1-c0:.2f}s ping p50 {lat[len(lat)//2]*1000:.2f}ms p99 {lat[int(len(lat)*0.99)]*1000:.2f}ms max {lat[-1]*1000:.2f}ms n={len(lat)}")
