//! The report's one inline stylesheet and one inline script. Their SHA-256 hashes go into the
//! page's Content-Security-Policy, so nothing else can run or style the page.

/// Screen and print styles. No `url()`, no `@import`, no web fonts: nothing to fetch.
pub const CSS: &str = r#"
:root{color-scheme:light;--fg:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#fff;--soft:#f4f6fa;--accent:#0b63c5;--ok:#1a7f37;--bad:#b42318;--warn:#9a6700}
*{box-sizing:border-box}
[hidden]{display:none!important}
html{font-family:system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;font-size:15px;line-height:1.45;color:var(--fg);background:var(--bg)}
body{margin:0;overflow-wrap:anywhere}
.eb-wrap{max-width:1180px;margin:0 auto;padding:24px 28px 64px}
header.eb-head{padding-bottom:4px}
h1{font-size:1.7rem;margin:0 0 4px}
h2{font-size:1.3rem;margin:34px 0 10px;padding-top:6px;border-top:1px solid var(--line)}
h3{font-size:1.05rem;margin:22px 0 8px}
.eb-sub{color:var(--muted);margin:0}
.eb-muted{color:var(--muted)}
.eb-mono,code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9em}
nav.eb-toc{margin:12px 0 4px;display:flex;flex-wrap:wrap;gap:6px 14px;font-size:.92rem}
nav.eb-toc a{color:var(--accent);text-decoration:none}
nav.eb-toc a:hover{text-decoration:underline}
.eb-cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px;margin:10px 0}
.eb-card{border:1px solid var(--line);border-radius:8px;padding:10px 12px;background:var(--soft)}
.eb-card .eb-k{font-size:.8rem;color:var(--muted);text-transform:none}
.eb-card .eb-d{font-size:.72rem;color:var(--muted);margin-top:4px;line-height:1.3}
.eb-card .eb-v{font-size:1.35rem;font-weight:650;font-variant-numeric:tabular-nums}
.eb-card.eb-main{border-color:var(--accent)}
.eb-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(500px,1fr));gap:14px}
figure.eb-chart{margin:0;border:1px solid var(--line);border-radius:8px;padding:8px;background:#fff;break-inside:avoid}
figure.eb-chart svg{max-width:100%;height:auto;display:block;margin:0 auto}
figure.eb-chart figcaption{font-size:.82rem;color:var(--muted);margin:4px 4px 0}
details{margin:4px 0}
summary{cursor:pointer;color:var(--accent)}
table{border-collapse:collapse;width:100%;font-size:.86rem;margin:6px 0 10px}
th,td{border-bottom:1px solid var(--line);padding:4px 7px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600;white-space:nowrap}
td.eb-n,th.eb-n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.eb-t{max-width:360px;overflow-wrap:anywhere}
table.eb-kv{width:auto;min-width:420px}
table.eb-kv th{width:260px}
.eb-ok{color:var(--ok);font-weight:600;white-space:nowrap}
.eb-bad{color:var(--bad);font-weight:600;white-space:nowrap}
.eb-warn{color:var(--warn)}
.eb-note{border-left:4px solid var(--warn);background:#fff8e6;padding:8px 12px;margin:10px 0;border-radius:4px}
.eb-reading{margin:6px 0;padding:8px 12px;border:1px solid var(--line);border-radius:6px}
.eb-reading b{display:block}
.eb-scroll{max-height:720px;overflow:auto;border:1px solid var(--line);border-radius:6px}
.eb-scroll table{margin:0}
.eb-scroll th{position:sticky;top:0;z-index:1}
.eb-tools{display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin:8px 0}
.eb-tools input,.eb-tools select{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:6px}
.eb-tools input{min-width:260px}
th.eb-sort{cursor:pointer;user-select:none}
th.eb-sort:focus{outline:2px solid var(--accent)}
th[aria-sort=ascending]::after{content:" \25B2";font-size:.7em}
th[aria-sort=descending]::after{content:" \25BC";font-size:.7em}
del{background:#ffe3e0;color:#8a1c12;text-decoration:line-through}
ins{background:#dcf5e3;color:#12602b;text-decoration:none}
tr.eb-regressed td:first-child{border-left:3px solid var(--bad)}
tr.eb-improved td:first-child{border-left:3px solid var(--ok)}
tr.eb-differs td{background:#fff8e6}
tr.eb-differs td:last-child{color:var(--warn);font-weight:600;white-space:nowrap}
table.eb-meta td:first-child{font-weight:600;white-space:nowrap}
table.eb-nowrap td{white-space:nowrap}
.eb-run{margin-top:8px}
.eb-print-only{display:none}
a.eb-dl{display:inline-block;border:1px solid var(--accent);border-radius:6px;padding:4px 10px;color:var(--accent);text-decoration:none}
footer{margin-top:40px;color:var(--muted);font-size:.82rem;border-top:1px solid var(--line);padding-top:10px}
@media (max-width:700px){.eb-grid{grid-template-columns:1fr}.eb-wrap{padding:14px}}
@media print{
 @page{size:A4;margin:14mm 12mm}
 html{font-size:10.5px}
 .eb-wrap{max-width:none;padding:0}
 nav.eb-toc,.eb-tools,a.eb-dl,details>summary{display:none}
 .eb-print-only{display:block}
 h2{break-before:page;border-top:none}
 h2.eb-first,h2.eb-nobreak{break-before:auto}
 h2,h3,h4{break-after:avoid}
 .eb-grid{display:grid;grid-template-columns:1fr 1fr;gap:4mm}
 figure.eb-chart{margin:0;border:1px solid var(--line);padding:2mm;break-inside:avoid}
 figure.eb-chart svg{width:100%;height:auto}
 .eb-cards{grid-template-columns:repeat(4,1fr)}
 .eb-card{break-inside:avoid;background:none}
 .eb-scroll{max-height:none;overflow:visible;border:none}
 .eb-scroll th{position:static}
 thead{display:table-header-group}
 tr{break-inside:avoid}
 td.eb-t{max-width:none;min-width:20mm}
 table.eb-items,table.eb-compare{font-size:8px}
 table.eb-items tbody tr:nth-child(n+201){display:none}
 a{color:inherit;text-decoration:none}
}
"#;

/// Sorting and filtering of tables marked `eb-sortable` / `eb-filterable`. Without it (scripts
/// blocked) the tables are complete, plain HTML tables and the controls stay hidden.
pub const JS: &str = r#"
(function(){
  "use strict";
  function val(td){var v=td.getAttribute("data-v");if(v!==null&&v!==""){var n=Number(v);if(!isNaN(n))return n;}return td.textContent.trim().toLowerCase();}
  function cmp(a,b){if(typeof a==="number"&&typeof b==="number")return a-b;if(typeof a==="number")return -1;if(typeof b==="number")return 1;return a<b?-1:a>b?1:0;}
  document.querySelectorAll("table.eb-sortable").forEach(function(t){
    var body=t.tBodies[0];if(!body)return;
    var ths=t.tHead?t.tHead.rows[0].cells:[];
    Array.prototype.forEach.call(ths,function(th,col){
      th.classList.add("eb-sort");th.tabIndex=0;th.title="Sort";
      function go(){
        var asc=th.getAttribute("aria-sort")!=="ascending";
        Array.prototype.forEach.call(ths,function(o){o.removeAttribute("aria-sort");});
        th.setAttribute("aria-sort",asc?"ascending":"descending");
        var rows=Array.prototype.slice.call(body.rows);
        var keyed=rows.map(function(r,i){var c=r.cells[col];return {r:r,i:i,k:c?val(c):""};});
        keyed.sort(function(x,y){var d=cmp(x.k,y.k);if(d===0)d=x.i-y.i;return asc?d:-d;});
        var f=document.createDocumentFragment();keyed.forEach(function(x){f.appendChild(x.r);});body.appendChild(f);
      }
      th.addEventListener("click",go);
      th.addEventListener("keydown",function(e){if(e.key==="Enter"||e.key===" "){e.preventDefault();go();}});
    });
  });
  document.querySelectorAll("[data-eb-filter]").forEach(function(box){
    var t=document.getElementById(box.getAttribute("data-eb-filter"));if(!t||!t.tBodies[0])return;
    box.hidden=false;
    var q=box.querySelector("input"),sel=box.querySelector("select"),out=box.querySelector("output");
    var rows=Array.prototype.slice.call(t.tBodies[0].rows);
    var text=rows.map(function(r){return r.textContent.toLowerCase();});
    function apply(){
      var n=(q&&q.value||"").trim().toLowerCase(),v=sel?sel.value:"",shown=0;
      rows.forEach(function(r,i){var ok=(!n||text[i].indexOf(n)>=0)&&(!v||r.getAttribute("data-verdict")===v);r.hidden=!ok;if(ok)shown++;});
      if(out)out.textContent=shown+" of "+rows.length+" rows shown";
    }
    if(q)q.addEventListener("input",apply);if(sel)sel.addEventListener("change",apply);apply();
  });
})();
"#;
