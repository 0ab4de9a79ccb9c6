"""One self-contained HTML page of a ``Show``: inline SVG and CSS, a small inline script, no
external resources (no URL, no ``src``, no link), so it opens offline.

Layout: the board (the static layer once, in ``<defs>``, and one ``<svg>`` per frame that
``<use>``-s it), the frame's details beside it (whose turn, scores, the move, the game's
notes), and the move list. Stepping: the buttons, the slider, the arrow keys (Home/End jump to
the start/end) or a click on a move.
"""

from __future__ import annotations

from mcsim.show.base import HIGHLIGHT, Show, esc

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:12px;color:#222;
background:#f4f1ea}
h1{font-size:20px;margin:0 0 2px}.sub{color:#555;font-size:13px;margin-bottom:8px}
#bar{display:flex;gap:6px;align-items:center;margin:6px 0 10px;flex-wrap:wrap}
#bar button{font-size:15px;padding:3px 10px}#slider{flex:1;min-width:200px;max-width:640px}
#pos{font-variant-numeric:tabular-nums;min-width:90px}
#main{display:flex;gap:16px;align-items:flex-start;flex-wrap:wrap}
.board{background:#fff;border:1px solid #bbb;border-radius:6px}
#side{min-width:300px;max-width:520px;font-size:14px}
.move{font-size:17px;margin:4px 0}.move b{color:%(hl)s}
table{border-collapse:collapse;margin:4px 0}td,th{border:1px solid #ccc;padding:1px 6px;
font-size:13px;text-align:left}th{background:#eee}
#moves{position:relative;max-height:260px;overflow:auto;font-size:12px;background:#fff;border:1px solid #ccc;
margin:8px 0;padding:4px 4px 4px 44px;font-family:ui-monospace,monospace}
#moves li{cursor:pointer}#moves li.cur{background:%(hl)s;color:#fff}#moves li.cur::marker{color:#222}
.legend{font-size:12px;color:#444;margin-top:6px}.sw{display:inline-block;width:11px;height:11px;
border-radius:2px;vertical-align:middle;margin-right:3px}
.note{background:#fff8d6;border:1px solid #e0c860;padding:3px 6px;margin:4px 0}
""" % {"hl": HIGHLIGHT}

SCRIPT = """
(function(){
var F=document.querySelectorAll('.frame'),L=document.querySelectorAll('#moves li'),
S=document.getElementById('slider'),P=document.getElementById('pos'),n=F.length,cur=0;
function go(i){i=Math.max(0,Math.min(n-1,i));F[cur].hidden=true;if(cur>0)L[cur-1].className='';
cur=i;F[cur].hidden=false;S.value=cur;P.textContent='ply '+cur+' / '+(n-1);
if(cur>0){var li=L[cur-1];li.className='cur';var M=li.parentNode;
if(li.offsetTop<M.scrollTop||li.offsetTop>M.scrollTop+M.clientHeight-20)M.scrollTop=li.offsetTop-M.clientHeight/2;}}
document.getElementById('first').onclick=function(){go(0)};
document.getElementById('prev').onclick=function(){go(cur-1)};
document.getElementById('next').onclick=function(){go(cur+1)};
document.getElementById('last').onclick=function(){go(n-1)};
S.oninput=function(){go(parseInt(S.value,10))};
for(var k=0;k<L.length;k++){L[k].onclick=(function(j){return function(){go(j)}})(k+1);}
document.addEventListener('keydown',function(e){
if(e.target===S&&(e.key==='ArrowLeft'||e.key==='ArrowRight'))return;
var m={ArrowRight:1,ArrowDown:1,ArrowLeft:-1,ArrowUp:-1,PageDown:10,PageUp:-10}[e.key];
if(m){go(cur+m);e.preventDefault();}else if(e.key==='Home'){go(0);e.preventDefault();}
else if(e.key==='End'){go(n-1);e.preventDefault();}});
go(0);window.showGo=go;window.showCur=function(){return cur};
})();
"""


def _scores(show: Show, scores) -> str:
    if not scores:
        return ""
    cells = "".join(
        f'<tr><td><span class="sw" style="background:{show.colours[k % len(show.colours)]}">'
        f"</span>{esc(show.seats[k])}</td><td>{esc(v)}</td></tr>"
        for k, v in enumerate(scores)
    )
    return f"<table><tr><th>seat</th><th>points</th></tr>{cells}</table>"


def render(show: Show) -> str:
    """The HTML text of ``show`` (one ``<div class="frame" data-ply=k data-move=...>`` per
    position, ply 0 = the start; the move list ``<ol id="moves">`` has one item per ply)."""
    n = len(show.frames)
    vb = f'viewBox="0 0 {show.width:.0f} {show.height:.0f}"'
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(show.title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{esc(show.title)}</h1>",
        f'<div class="sub">{esc(show.subtitle)}</div>',
        '<div id="bar"><button id="first" title="start (Home)">|&#x25C0;</button>'
        '<button id="prev" title="back (&#x2190;)">&#x25C0;</button>'
        '<button id="next" title="forward (&#x2192;)">&#x25B6;</button>'
        '<button id="last" title="end (End)">&#x25B6;|</button>'
        f'<input id="slider" type="range" min="0" max="{n - 1}" value="0" step="1">'
        '<span id="pos"></span></div>',
        f'<svg width="0" height="0" style="position:absolute"><defs>{show.defs}<g id="base">{show.base}'
        "</g></defs></svg>",
        '<div id="main"><div id="frames">',
    ]
    w = min(show.width, 900)
    h = show.height * w / show.width
    for k, f in enumerate(show.frames):
        hidden = "" if k == 0 else " hidden"
        if k == 0:
            head = '<div class="move">start of the game</div>'
        else:
            head = f'<div class="move">ply {k}: {esc(f.actor)} <b>{esc(f.move)}</b></div>'
        turn = (
            f"<div>to move: <b>{esc(f.to_move)}</b></div>"
            if f.to_move
            else "<div><b>game over</b></div>"
        )
        parts.append(
            f'<div class="frame" data-ply="{k}" data-move="{esc(f.move)}" '
            f'data-scores="{esc(",".join(map(str, f.scores)))}"{hidden}>'
            f'<div style="display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start">'
            f'<svg class="board" {vb} width="{w:.0f}" height="{h:.0f}">'
            f'<use href="#base"/>{f.svg}</svg>'
            f'<div class="info" style="min-width:280px;max-width:520px">{head}{turn}'
            f"{_scores(show, f.scores)}{f.notes}</div></div></div>"
        )
    parts.append("</div></div>")
    parts.append(
        '<ol id="moves">'
        + "".join(f"<li>{esc(f.actor)}: {esc(f.move)}</li>" for f in show.frames[1:])
        + "</ol>"
    )
    if show.legend:
        parts.append(f'<div class="legend">{show.legend}</div>')
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(parts)
