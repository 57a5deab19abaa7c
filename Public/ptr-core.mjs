export let createCore=(c={})=>{let o={threshold:64,max:160,deadZone:10,hold:56,cooldown:1e3,timeout:15e3,timers:globalThis},T,S='idle',P=0,g,u=0,n=0,h,
N=()=>(T.now||Date.now)(),
W=(f,t)=>{T.clearTimeout(h);h=T.setTimeout(f,t)},
set=(s,p,i)=>{S=s;P=p;o.onChange?.(s,p,i)},
settle=()=>{set('settling',0);W(()=>set('idle',0),300)},
busy=()=>S=='refreshing'||N()<u,
cancel=()=>{g=0;/^[pa]/.test(S)&&settle()},
refresh=source=>new Promise(r=>{if(busy())return r(!1)
T.clearTimeout(h);g=0
let i=++n,a=new AbortController,E=(k,v)=>{if(i==n){n++;T.clearTimeout(w);u=N()+(k?o.cooldown:v?.retryAfter*1e3||0);set(k?'done':'error',o.hold,v);k&&W(settle,900);r(k)}},
w=T.setTimeout(()=>{a.abort();E(!1,{code:'timeout'})},o.timeout)
set('refreshing',o.hold,{source})
Promise.resolve({signal:a.signal,source}).then(o.onRefresh).then(v=>E(!0,v),v=>E(!1,v))})
for(let k in c)c[k]!=null&&(o[k]=c[k])
T=o.timers
return{o,refresh,cancel,get state(){return S},get pull(){return P},
start(x,y,t){g=t&&/^[ie]/.test(S)&&{x,y}},
move(x,y,t){if(!g)return!1
if(!t)return cancel(),!1
let d=o.deadZone,m=o.max,Y=y-g.y,X=Math.abs(x-g.x),v=Y>0&&Y>=X*1.5
if(!g.on){if(Math.hypot(X,Y)<d)return v
if(!v)return g=0,!1
g.on=1}
Y=Math.max(0,Y-d);Y=m*Y/(Y+m)
set(!busy()&&Y>=o.threshold*(S=='armed'?.8:1)?'armed':'pulling',Y)
return!0},
end(){let a=g?.on;g=0;a&&(S=='armed'?refresh('gesture'):settle())},
destroy(){T.clearTimeout(h);n++;g=P=0}}}
