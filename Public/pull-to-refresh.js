import{createCore}from'./ptr-core.mjs'
let D=document,X={pulling:'Pull',armed:'Release',refreshing:'Refreshing',done:'Updated',error:'Error',offline:'Offline',busy:'Busy'}
export function attach(R,O={}){if(R.ptr)return R.ptr
let d=R.dataset,A=new AbortController,F,Q,H,K=0,c={},
[L,E,V,B,Y,U,Z]='list text status pill retry button updated'.split(' ').map(k=>R.querySelector(`[data-ptr-${k}]`)),
s=(k,n)=>(d['ptrText'+k]||'').replace('{n}',n),
pl=n=>s(n>1?'New':'NewOne',n),
on=(t,e,f,p)=>t?.addEventListener(e,f,{passive:p,signal:A.signal}),
load=async({signal})=>{let u=new URL(d.ptrEndpoint,location),r,h,v
u.searchParams.set('since',d.ptrVersion)
r=await fetch(u,{method:'POST',headers:{Accept:'text/html'},signal}).catch(e=>{throw{code:navigator.onLine?e.name:'offline'}})
h=k=>r.headers.get(k);v=r.status
if(v==429||v==503)throw{code:'busy',retryAfter:+h('Retry-After')}
if(!r.ok&&v-304)throw{code:v}
if(v=h('X-Feed-Version'))d.ptrVersion=v
if((v=h('X-Feed-Updated-At'))&&Z)Z.dateTime=v,Z.textContent=v.slice(0,16).replace('T',' ')+' UTC'
return{added:L?ins(await r.text()):0}},
ins=html=>{let t=D.createElement('template'),f=L.firstElementChild,y=f?.offsetTop,a
t.innerHTML=html
L.prepend(...a=[...t.content.children])
if(R.scrollTop>1&&f&&a[0]){R.scrollTop+=f.offsetTop-y;K+=a.length;B&&(B.textContent=pl(K),B.hidden=!1)}
return a.length},
paint=()=>{F=0;for(let e of R.children)e!=B&&(e.style.transform=core.pull&&!H?`translateY(${core.pull}px)`:'')},
change=(S,p,i)=>{if(S!=Q){let a=i?.added,t=s(S=='done'&&a===0?'UpToDate':X[S=='error'&&X[i?.code]?i.code:S]),
v=S=='pulling'?/idle|error/.test(Q)&&'pullstart':S=='refreshing'?'refresh':X[S]&&S
Q=d.ptrState=S
if(/^[pr]/.test(S))H=R.scrollTop>1
v&&R.dispatchEvent(new CustomEvent('ptr:'+v,{bubbles:!0,detail:i}))
L?.setAttribute('aria-busy',S=='refreshing')
t&&E&&(E.textContent=t)
V&&/ref|done|err/.test(S)&&(V.textContent=a>0?pl(a):t)
if(Y){S!='error'&&D.activeElement==Y&&U?.focus();Y.hidden=S!='error'}}
F||(F=requestAnimationFrame(paint))},
core=(Object.keys(d).map(k=>+d[k]>=0&&(c[k[3].toLowerCase()+k.slice(4)]=+d[k])),createCore({...c,...O,onRefresh:O.onRefresh||load,onChange:change})),
pt=(e,f)=>(e=e.touches[0],f(e.clientX,e.clientY,R.scrollTop<1)),
skip=e=>{for(;e!=R;e=e.parentElement)if(e.hasAttribute('data-ptr-ignore')||e.scrollHeight+e.scrollWidth>e.clientHeight+e.clientWidth&&/auto|scroll/.test(getComputedStyle(e).overflow))return 1},
ctl={core,refresh:()=>core.refresh('api'),
destroy(){A.abort();core.destroy();paint();delete R.ptr;R.style.overscrollBehaviorY='';delete d.ptrState}}
on(R,'touchstart',e=>e.touches[1]||skip(e.target)?core.cancel():pt(e,core.start),1)
on(R,'touchmove',e=>pt(e,core.move)&&e.cancelable&&e.preventDefault(),!1)
on(R,'touchend',e=>e.touches[0]||core.end())
on(R,'touchcancel',core.cancel)
on(D,'visibilitychange',core.cancel)
on(window,'pagehide',core.cancel)
on(R,'scroll',()=>R.scrollTop<1&&B&&(B.hidden=!0,K=0),1)
on(U?.form,'submit',e=>{e.preventDefault();core.refresh('button')})
on(Y,'click',()=>core.refresh('retry'))
on(B,'click',()=>{L.tabIndex=-1;L.focus();R.scrollTop=0})
R.style.overscrollBehaviorY='contain'
change('idle')
return R.ptr=ctl}
export let PullToRefresh=window.PullToRefresh={attach}
export default PullToRefresh
D.querySelectorAll('[data-pull-to-refresh]').forEach(attach)
