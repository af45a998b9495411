/**
 * The pages' stylesheet and scripts, sent inline with the response's CSP nonce. Scripts
 * only improve the pages (live brand detection, browser data for 3-D Secure, starting the
 * challenge and redirect steps): every form also works without them.
 */

export const stylesheet = `
:root{color-scheme:light;--ink:#1d2330;--muted:#4a5263;--line:#c5cad3;--accent:#1a56b8;--accent-ink:#fff;--error:#b00020;--ok:#116b2f;--bg:#f3f5f8}
*{box-sizing:border-box}
[hidden]{display:none!important}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:30rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid var(--line);border-radius:.75rem}
@media (max-width:32rem){main{margin:1rem .75rem;padding:1.25rem 1rem}}
header.summary{border-bottom:1px solid var(--line);margin-bottom:1rem;padding-bottom:.75rem}
header.summary .merchant{margin:0;color:var(--muted);font-size:.95rem}
header.summary .amount{margin:.25rem 0 0;font-size:1.75rem;font-weight:700}
header.summary .description{margin:.25rem 0 0;color:var(--muted)}
h1{font-size:1.35rem;margin:0 0 .75rem}
h2{font-size:1.1rem;margin:0 0 .5rem}
.test-banner{background:#fff4d6;border:1px solid #c99a06;color:#4d3b00;padding:.5rem .75rem;border-radius:.5rem;font-size:.875rem;margin-bottom:1rem}
.field{margin-bottom:1rem}
/* Expiry and CVC share their rows (subgrid): a label or hint that wraps in one language moves both inputs together, never one below the other. */
.row{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));column-gap:1rem}
.row .field{display:grid;grid-row:span 4;grid-template-rows:subgrid;align-content:start;margin-bottom:1rem}
.row .field label{align-self:end}
.row .hint{margin:.25rem 0 0}
label,legend{display:block;font-weight:600;margin-bottom:.25rem}
.hint{display:block;color:var(--muted);font-size:.85rem;margin:0 0 .25rem}
input[type=text],input[type=tel],input[type=email],select{width:100%;padding:.65rem .75rem;font-size:1rem;border:1px solid #767f8f;border-radius:.4rem;color:var(--ink);background:#fff}
input:focus,button:focus,a:focus{outline:3px solid #8bb4f7;outline-offset:1px}
input[aria-invalid=true]{border-color:var(--error)}
.error{color:var(--error);font-size:.9rem;margin:.25rem 0 0}
.error-summary{border:2px solid var(--error);border-radius:.5rem;padding:.5rem .75rem;margin-bottom:1rem;color:var(--error)}
.brand{color:var(--muted);font-size:.9rem;margin:.25rem 0 0;display:flex;align-items:center;gap:.5rem}
.brand:empty{margin:0}
.error-summary p{margin:0}
fieldset{border:0;padding:0;margin:0 0 1rem}
fieldset label{font-weight:400;display:inline-flex;gap:.35rem;margin-right:1rem}
button{font:inherit;cursor:pointer}
.primary{width:100%;padding:.8rem 1rem;font-size:1.05rem;font-weight:700;background:var(--accent);color:var(--accent-ink);border:0;border-radius:.5rem}
.primary[disabled]{opacity:.7}
.secondary{background:none;border:0;color:var(--accent);text-decoration:underline;padding:.5rem 0;margin-top:.5rem}
.accepted{color:var(--muted);font-size:.85rem;margin:0 0 1rem}
.marks{display:flex;flex-wrap:wrap;gap:.4rem}
.mark{display:inline-block;width:2.6rem;height:auto;vertical-align:middle;transition:opacity .15s}
.marks .mark.dim{opacity:.3}
fieldset label .mark{width:2.2rem}
main>p a{color:var(--accent)}
.methods button{display:block;width:100%;text-align:left;padding:1rem;margin-bottom:.5rem;background:#fff;border:1px solid #767f8f;border-radius:.5rem;font-size:1.05rem}
.outcome-success{color:var(--ok)}
.outcome-failed{color:var(--error)}
a.button{display:inline-block;padding:.75rem 1rem;background:var(--accent);color:var(--accent-ink);border-radius:.5rem;text-decoration:none;font-weight:700}
.backdrop{position:fixed;inset:0;background:rgba(15,20,30,.65);display:flex;align-items:center;justify-content:center;padding:1rem}
.modal{background:#fff;border-radius:.75rem;padding:1rem;max-width:100%;max-height:100%;overflow:auto}
.modal iframe{display:block;border:1px solid var(--line);border-radius:.25rem;background:#fff;max-width:100%}
.window-01{width:250px;height:400px}.window-02{width:390px;height:400px}.window-03{width:500px;height:600px}.window-04{width:600px;height:400px}
.window-05{width:calc(100vw - 4rem);height:calc(100vh - 10rem)}
.modal-full{width:100%;height:100%}
.method-frame{position:absolute;width:0;height:0;border:0}
main.bank{max-width:26rem;margin:.5rem auto;padding:1rem}
.bank .logo{font-weight:800;color:#0b5137;font-size:1.2rem;margin:0 0 .5rem}
.bank .primary{background:#0b5137}
.code{font-family:ui-monospace,monospace;font-weight:700}
.lines{width:100%;border-collapse:collapse;margin:0 0 1rem}
.lines th,.lines td{text-align:left;padding:.4rem .25rem;border-bottom:1px solid var(--line)}
.lines th:last-child,.lines td:last-child{text-align:right;white-space:nowrap}
dl.transfer{display:grid;grid-template-columns:auto 1fr;gap:.35rem 1rem;margin:0 0 1rem}
dl.transfer dt{color:var(--muted)}
dl.transfer dd{margin:0;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
`;

/** Card page: browser data for 3-D Secure, live brand detection, a Luhn check before posting. */
/** Fills a form's browser-fact fields (views.ts browserFactFields) for the 3-D Secure AReq. */
export const browserFactsScript = `(function(){
var form=document.querySelector('form[data-browser-facts]');if(!form)return;
function set(n,v){var e=form.elements.namedItem(n);if(e)e.value=String(v);}
set('js','1');set('screenWidth',screen.width);set('screenHeight',screen.height);set('colorDepth',screen.colorDepth);
set('timeZone',new Date().getTimezoneOffset());set('browserLanguage',navigator.language||'');
set('windowWidth',window.innerWidth);
})();`;

export const cardScript = `(function(){
var form=document.getElementById('card-form');if(!form)return;
var rules=JSON.parse(document.getElementById('brand-rules').textContent);
var number=form.elements.namedItem('cardNumber');var brandText=document.getElementById('cardNumber-brand');
var choice=document.getElementById('brand-choice');var cvc=document.getElementById('cvc-field');
var numberError=document.getElementById('cardNumber-error');
var marks=document.querySelectorAll('.marks .mark');
function strength(d,p){if(typeof p==='number'){p=String(p);return d.slice(0,p.length)===p?p.length:0;}
var w=String(p[0]).length;if(d.length<w)return 0;var h=Number(d.slice(0,w));return h>=p[0]&&h<=p[1]?w:0;}
function detect(d){var m=[];rules.forEach(function(r){var s=0;r.patterns.forEach(function(p){s=Math.max(s,strength(d,p));});if(s>0)m.push({rule:r,s:s});});
m.sort(function(a,b){return b.s-a.s;});return m.map(function(x){return x.rule;});}
function luhn(d){var s=0;for(var i=0;i<d.length;i++){var n=+d[d.length-1-i];if(i%2){n*=2;if(n>9)n-=9;}s+=n;}return s%10===0;}
function digits(){return number.value.replace(/[\\s-]/g,'');}
function update(){var d=digits();var m=d.length>=4?detect(d):[];
brandText.textContent=m.length?form.dataset.brandLabel.replace('{brand}',m.map(function(r){return r.name;}).join(' / ')):'';
marks.forEach(function(k){k.classList.toggle('dim',m.length>0&&!m.some(function(r){return r.brand===k.getAttribute('data-mark');}));});
var chosen=null;
if(choice){var opts=choice.querySelectorAll('[data-brand]');var shown=0;
opts.forEach(function(o){var on=m.length>1&&m.some(function(r){return r.brand===o.dataset.brand;});o.hidden=!on;if(on)shown++;var i=o.querySelector('input');if(!on)i.checked=false;});
choice.hidden=shown<2;var c=choice.querySelector('input:checked');
if(shown>1&&!c){c=choice.querySelector('[data-brand="'+m[0].brand+'"] input')||choice.querySelector('[data-brand]:not([hidden]) input');c.checked=true;}
chosen=c?c.value:null;}
var brand=chosen||(m[0]&&m[0].brand);var rule=rules.filter(function(r){return r.brand===brand;})[0];
if(cvc){var none=!!rule&&rule.cvcLength===0;cvc.hidden=none;if(none)cvc.querySelector('input').value='';}}
number.addEventListener('input',update);if(choice)choice.addEventListener('change',update);update();
form.addEventListener('submit',function(e){var d=digits();
if(!/^\\d{12,19}$/.test(d)||!luhn(d)){e.preventDefault();numberError.textContent=form.dataset.numberInvalid;numberError.hidden=false;
number.setAttribute('aria-invalid','true');number.focus();return;}
var b=form.querySelector('button[type=submit]');setTimeout(function(){b.disabled=true;},0);});
})();`;

/** Forms marked data-autosubmit go on by themselves (CReq to the ACS, 3DS1 redirect, CRes/PaRes back). */
export const autosubmitScript = `(function(){var f=document.querySelector('form[data-autosubmit]');if(f)f.submit();})();`;

/** Challenge pop-up: the completion form is sent once the challenge window reports it is done. */
export const challengeScript = `(function(){window.addEventListener('message',function(e){
if(e.origin!==location.origin||!e.data||e.data.type!=='kassa:challenge-complete')return;
document.getElementById('complete-form').submit();});
var f=document.querySelector('.modal iframe');if(f)f.focus();})();`;

/** Inside the challenge window after the CRes, or the 3DS method's hidden frame after the method: tell Kassa's page (same origin) to continue. */
export const notifyScript = `(function(){var m=document.querySelector('[data-notify]');
if(m&&window.parent!==window)window.parent.postMessage({type:m.dataset.notify},location.origin);})();`;

/**
 * The issuer's 3DS method in a hidden frame: the completion form is sent once the frame reports
 * the method posted back (Y), or after 10 seconds without it (N), as EMVCo allows the method.
 */
export const methodScript = `(function(){var f=document.getElementById('method-form');if(!f)return;var sent=false;
function go(c){if(sent)return;sent=true;f.elements.namedItem('completed').value=c;f.submit();}
window.addEventListener('message',function(e){if(e.origin===location.origin&&e.data&&e.data.type==='kassa:method-complete')go('Y');});
setTimeout(function(){go('N');},10000);})();`;
