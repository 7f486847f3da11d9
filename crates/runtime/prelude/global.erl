%% global: names for processes, as OTP 25 documents them, on the one node
%% a trace run has. A name is any term; it goes away when its process ends.
%% Names are kept in the engine's run-wide store, and every lookup is a
%% nondeterministic result that a recording logs.
-module(global).
-export([register_name/2, register_name/3, unregister_name/1,
         re_register_name/2, re_register_name/3, whereis_name/1, send/2,
         registered_names/0, random_exit_name/3, random_notify_name/3,
         notify_all_name/3, sync/0, trans/2, trans/3, trans/4,
         set_lock/1, set_lock/2, set_lock/3, del_lock/1, del_lock/2]).

register_name(Name, Pid) when is_pid(Pid) ->
    register_name(Name, Pid, fun random_exit_name/3).

register_name(Name, Pid, _Resolve) when is_pid(Pid) ->
    Key = {'$global', Name},
    case is_process_alive(Pid) of
        false -> no;
        true ->
            Now = trace_prelude:store_get(Key),
            Free = case Now of
                       error -> true;
                       %% The holder has ended: its name is free.
                       {ok, Old} -> not is_process_alive(Old)
                   end,
            case Free andalso trace_prelude:store_cas(Key, Now, Pid) of
                true -> yes;
                false -> no
            end
    end.

re_register_name(Name, Pid) when is_pid(Pid) ->
    re_register_name(Name, Pid, fun random_exit_name/3).

re_register_name(Name, Pid, _Resolve) when is_pid(Pid) ->
    trace_prelude:store_put({'$global', Name}, Pid),
    yes.

unregister_name(Name) ->
    trace_prelude:store_erase({'$global', Name}),
    ok.

whereis_name(Name) ->
    holder(Name).

%% The live process holding Name, or undefined.
holder(Name) ->
    case trace_prelude:store_get({'$global', Name}) of
        {ok, Pid} ->
            case is_process_alive(Pid) of
                true -> Pid;
                false -> undefined
            end;
        error -> undefined
    end.

send(Name, Msg) ->
    case holder(Name) of
        undefined -> exit({badarg, {Name, Msg}});
        Pid -> Pid ! Msg, Pid
    end.

registered_names() ->
    [Name || {{'$global', Name}, Pid} <- trace_prelude:store_select('$global'),
             is_process_alive(Pid)].

%% Name clashes happen between nodes only; these resolvers are never
%% needed on one node but are exported as OTP exports them.
random_exit_name(_Name, Pid1, _Pid2) -> Pid1.
random_notify_name(_Name, Pid1, _Pid2) -> Pid1.
notify_all_name(_Name, _Pid1, _Pid2) -> none.

sync() -> ok.

trans(Id, Fun) -> trans(Id, Fun, [node()]).
trans(Id, Fun, Nodes) -> trans(Id, Fun, Nodes, infinity).
trans(_Id, _Fun, _Nodes, _Retries) ->
    trace_prelude:unsupported("global:trans/2,3,4 (global locks)").

set_lock(_) -> trace_prelude:unsupported("global:set_lock/1,2,3 (global locks)").
set_lock(_, _) -> trace_prelude:unsupported("global:set_lock/1,2,3 (global locks)").
set_lock(_, _, _) -> trace_prelude:unsupported("global:set_lock/1,2,3 (global locks)").
del_lock(_) -> trace_prelude:unsupported("global:del_lock/1,2 (global locks)").
del_lock(_, _) -> trace_prelude:unsupported("global:del_lock/1,2 (global locks)").
