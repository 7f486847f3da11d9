%% gen: what OTP's generic behaviours share (written from OTP 25's
%% documentation of gen_server, gen_statem and gen_event): starting a
%% named process synchronously, and the call protocol. A call monitors the
%% server with an alias as its reference and sends
%% {Label, {self(), [alias | Mref]}, Request}; the reply {[alias | Mref],
%% Reply} comes back through the alias, so one that arrives after the
%% caller gave up is dropped (OTP 24 and later). A call with an infinite
%% timeout uses the plain monitor reference as its tag, as OTP does.
-module(gen).
-export([start/5, start/6, init_it/6, init_it/7, call/3, call/4, reply/2,
         stop/1, stop/3, where/1, register_name/1, unregister_name/1,
         get_parent/0, get_proc_name/1, name/1, debug_options/2,
         hibernate_after/1, format_status_header/2, send_request/3,
         wait_response/2, receive_response/2, check_response/2,
         timeout_option/1, spawn_options/1]).

start(GenMod, LinkP, Name, Mod, Args, Options) ->
    case where(Name) of
        undefined -> do_spawn(GenMod, LinkP, Name, Mod, Args, Options);
        Pid -> {error, {already_started, Pid}}
    end.

start(GenMod, LinkP, Mod, Args, Options) ->
    do_spawn(GenMod, LinkP, Mod, Args, Options).

do_spawn(GenMod, LinkP, Mod, Args, Options) ->
    check_options(Options),
    Time = timeout_option(Options),
    spawn_with(LinkP, [GenMod, self(), parent_for(LinkP), Mod, Args, Options],
               Time, spawn_options(Options)).

do_spawn(GenMod, LinkP, Name, Mod, Args, Options) ->
    check_options(Options),
    Time = timeout_option(Options),
    spawn_with(LinkP,
               [GenMod, self(), parent_for(LinkP), Name, Mod, Args, Options],
               Time, spawn_options(Options)).

spawn_with(link, InitArgs, Time, SpawnOpts) ->
    proc_lib:start_link(?MODULE, init_it, InitArgs, Time, SpawnOpts);
spawn_with(monitor, InitArgs, Time, SpawnOpts) ->
    proc_lib:start_monitor(?MODULE, init_it, InitArgs, Time, SpawnOpts);
spawn_with(_, InitArgs, Time, SpawnOpts) ->
    proc_lib:start(?MODULE, init_it, InitArgs, Time, SpawnOpts).

%% A process that is not linked to its starter is its own parent.
parent_for(link) -> self();
parent_for(_) -> self.

init_it(GenMod, Starter, Parent, Mod, Args, Options) ->
    init_it2(GenMod, Starter, Parent, self(), Mod, Args, Options).

init_it(GenMod, Starter, Parent, Name, Mod, Args, Options) ->
    case register_name(Name) of
        true ->
            init_it2(GenMod, Starter, Parent, Name, Mod, Args, Options);
        {false, Pid} ->
            proc_lib:init_ack(Starter, {error, {already_started, Pid}})
    end.

init_it2(GenMod, Starter, self, Name, Mod, Args, Options) ->
    init_it2(GenMod, Starter, self(), Name, Mod, Args, Options);
init_it2(GenMod, Starter, Parent, Name, Mod, Args, Options) ->
    GenMod:init_it(Starter, Parent, Name, Mod, Args, Options).

%% Options of start/3,4 and start_link/3,4.
check_options(Options) when is_list(Options) ->
    lists:foreach(fun check_option/1, Options);
check_options(_) ->
    erlang:error(badarg).

check_option({timeout, _}) -> ok;
check_option({spawn_opt, _}) -> ok;
check_option({hibernate_after, _}) -> ok;
check_option({debug, []}) -> ok;
check_option({debug, Flags}) ->
    trace_prelude:unsupported(
      io_lib:format("the sys debug option ~tp (of a start option)", [Flags]));
check_option(_) -> ok.

timeout_option(Options) ->
    case lists:keyfind(timeout, 1, Options) of
        {timeout, T} -> T;
        false -> infinity
    end.

spawn_options(Options) ->
    case lists:keyfind(spawn_opt, 1, Options) of
        {spawn_opt, Opts} -> Opts;
        false -> []
    end.

hibernate_after(Options) ->
    case lists:keyfind(hibernate_after, 1, Options) of
        {hibernate_after, T} -> T;
        false -> infinity
    end.

debug_options(_Name, _Options) -> [].

%% Names: {local, N}, {global, N} and {via, Module, N}.
where({global, Name}) -> global:whereis_name(Name);
where({via, Module, Name}) -> Module:whereis_name(Name);
where({local, Name}) -> whereis(Name).

register_name({local, Name} = LN) ->
    try register(Name, self()) of
        true -> true
    catch error:_ -> {false, where(LN)}
    end;
register_name({global, Name} = GN) ->
    case global:register_name(Name, self()) of
        yes -> true;
        no -> {false, where(GN)}
    end;
register_name({via, Module, Name} = GN) ->
    case Module:register_name(Name, self()) of
        yes -> true;
        no -> {false, where(GN)}
    end.

unregister_name({local, Name}) ->
    try unregister(Name) of _ -> ok catch _:_ -> ok end;
unregister_name({global, Name}) -> _ = global:unregister_name(Name), ok;
unregister_name({via, Mod, Name}) -> _ = Mod:unregister_name(Name), ok;
unregister_name(Pid) when is_pid(Pid) -> ok.

name({local, Name}) -> Name;
name({global, Name}) -> Name;
name({via, _, Name}) -> Name;
name(Pid) when is_pid(Pid) -> Pid.

get_proc_name(Pid) when is_pid(Pid) -> Pid;
get_proc_name({local, Name}) ->
    case process_info(self(), registered_name) of
        {registered_name, Name} -> Name;
        _ -> exit(process_not_registered)
    end;
get_proc_name({global, Name}) ->
    case global:whereis_name(Name) of
        Pid when Pid =:= self() -> Name;
        _ -> exit(process_not_registered_globally)
    end;
get_proc_name({via, Mod, Name}) ->
    case Mod:whereis_name(Name) of
        Pid when Pid =:= self() -> Name;
        _ -> exit({process_not_registered_via, Mod})
    end.

%% The parent of a process started by proc_lib: the first of its ancestors.
get_parent() ->
    case get('$ancestors') of
        [Parent | _] when is_pid(Parent) -> Parent;
        [Parent | _] when is_atom(Parent) -> name_to_pid(Parent);
        _ -> exit(process_was_not_started_by_proc_lib)
    end.

name_to_pid(Name) ->
    case whereis(Name) of
        undefined ->
            case global:whereis_name(Name) of
                undefined -> exit(could_not_find_registered_name);
                Pid -> Pid
            end;
        Pid -> Pid
    end.

%% Calls. Process: a pid, a registered name, {Name, Node} on this node,
%% {global, Name} or {via, Module, Name}.
call(Process, Label, Request) ->
    call(Process, Label, Request, 5000).

call(Process, Label, Request, Timeout)
  when is_pid(Process), Timeout =:= infinity;
       is_pid(Process), is_integer(Timeout), Timeout >= 0 ->
    do_call(Process, Label, Request, Timeout);
call(Process, Label, Request, Timeout)
  when Timeout =:= infinity; is_integer(Timeout), Timeout >= 0 ->
    do_call(resolve(Process), Label, Request, Timeout).

resolve(Process) ->
    case where_process(Process) of
        undefined -> exit(noproc);
        Pid -> Pid
    end.

where_process(Pid) when is_pid(Pid) -> Pid;
where_process(Name) when is_atom(Name) -> whereis(Name);
where_process({global, _} = G) -> where(G);
where_process({via, _, _} = V) -> where(V);
where_process({Name, Node}) when is_atom(Name), Node =:= node() ->
    whereis(Name);
where_process({Name, Node}) when is_atom(Name), is_atom(Node) ->
    trace_prelude:unsupported(
      io_lib:format("a call to a process on another node (~tw)", [Node])).

do_call(Pid, Label, Request, infinity) ->
    %% No alias is needed: the call waits for the reply or the 'DOWN'.
    Mref = erlang:monitor(process, Pid),
    Pid ! {Label, {self(), Mref}, Request},
    receive
        {Mref, Reply} ->
            erlang:demonitor(Mref, [flush]),
            {ok, Reply};
        {'DOWN', Mref, _, _, Reason} ->
            exit(Reason)
    end;
do_call(Pid, Label, Request, Timeout) ->
    Mref = erlang:monitor(process, Pid, [{alias, demonitor}]),
    Tag = [alias | Mref],
    erlang:send(Pid, {Label, {self(), Tag}, Request}, [noconnect]),
    receive
        {[alias | Mref], Reply} ->
            erlang:demonitor(Mref, [flush]),
            {ok, Reply};
        {'DOWN', Mref, _, _, Reason} ->
            exit(Reason)
    after Timeout ->
            erlang:demonitor(Mref, [flush]),
            %% A reply that arrived before the alias was given up counts.
            receive
                {[alias | Mref], Reply} -> {ok, Reply}
            after 0 -> exit(timeout)
            end
    end.

reply({_To, [alias | Alias] = Tag}, Reply) when is_reference(Alias) ->
    Alias ! {Tag, Reply},
    ok;
reply({_To, [[alias | Alias] | _] = Tag}, Reply) when is_reference(Alias) ->
    Alias ! {Tag, Reply},
    ok;
reply({To, Tag}, Reply) ->
    try To ! {Tag, Reply} of _ -> ok
    catch _:_ -> ok
    end.

%% Asynchronous requests (gen_server:send_request/2 and friends): the
%% request id is the monitor reference, which is also the reply's alias.
send_request(Name, Label, Request) when is_atom(Name) ->
    case whereis(Name) of
        %% The answer names the server as it was given.
        undefined -> no_server(Name);
        _ -> send_request_to(Name, Label, Request)
    end;
send_request(Process, Label, Request) ->
    Target = case Process of
                 {global, _} -> request_target(where(Process), Process);
                 {via, _, _} -> request_target(where(Process), Process);
                 _ -> Process
             end,
    send_request_to(Target, Label, Request).

no_server(Name) ->
    Mref = make_ref(),
    self() ! {'DOWN', Mref, process, Name, noproc},
    Mref.

send_request_to(Target, Label, Request) ->
    %% Monitoring a pid that has ended gives 'DOWN' with noproc at once.
    Mref = erlang:monitor(process, Target, [{alias, demonitor}]),
    try erlang:send(Target, {Label, {self(), [alias | Mref]}, Request},
                    [noconnect])
    catch error:badarg -> ok
    end,
    Mref.

request_target(undefined, Process) -> exit({noproc, Process});
request_target(Pid, _) -> Pid.

wait_response(Mref, Timeout) ->
    receive
        {[alias | Mref], Reply} ->
            erlang:demonitor(Mref, [flush]),
            {reply, Reply};
        {'DOWN', Mref, _, Object, Reason} ->
            {error, {Reason, Object}}
    after Timeout ->
            timeout
    end.

receive_response(Mref, Timeout) ->
    receive
        {[alias | Mref], Reply} ->
            erlang:demonitor(Mref, [flush]),
            {reply, Reply};
        {'DOWN', Mref, _, Object, Reason} ->
            {error, {Reason, Object}}
    after Timeout ->
            erlang:demonitor(Mref, [flush]),
            receive
                {[alias | Mref], Reply} -> {reply, Reply}
            after 0 -> timeout
            end
    end.

check_response(Msg, Mref) ->
    case Msg of
        {[alias | Mref], Reply} ->
            erlang:demonitor(Mref, [flush]),
            {reply, Reply};
        {'DOWN', Mref, _, Object, Reason} ->
            {error, {Reason, Object}};
        _ ->
            no_reply
    end.

stop(Process) -> stop(Process, normal, infinity).

stop(Process, Reason, Timeout)
  when Timeout =:= infinity; is_integer(Timeout), Timeout >= 0 ->
    case where_process(Process) of
        undefined -> exit(noproc);
        Pid -> proc_lib:stop(Pid, Reason, Timeout)
    end.

format_status_header(TagLine, Pid) when is_pid(Pid) ->
    lists:concat([TagLine, " ", pid_to_list(Pid)]);
format_status_header(TagLine, RegName) when is_atom(RegName) ->
    lists:concat([TagLine, " ", RegName]);
format_status_header(TagLine, Name) ->
    {TagLine, Name}.
