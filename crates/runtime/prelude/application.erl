%% application: OTP applications (written from OTP 25's documentation),
%% for the program's own applications: those its .app or .app.src files
%% describe (their env, mod, applications). kernel and stdlib are always
%% loaded and started; another OTP application cannot be loaded (the
%% engine does not have it: the run stops with an error naming it).
%%
%% Starting an application with a mod spawns its application master, the
%% group leader of the application's processes: it calls Mod:start/2, holds
%% the link to the top supervisor, and on stop/1 shuts the supervisor down
%% and calls Mod:prep_stop/1 and Mod:stop/1. Applications are started as
%% temporary (the only start type whose end leaves the node running): a
%% permanent or transient application whose end would stop the node stops
%% the run with an error naming it. Environments and the started
%% applications live in the engine's run-wide store.
-module(application).
-export([load/1, load/2, unload/1, start/1, start/2, ensure_started/1,
         ensure_started/2, ensure_all_started/1, ensure_all_started/2,
         stop/1, get_env/1, get_env/2, get_env/3, set_env/1, set_env/2,
         set_env/3, set_env/4, unset_env/2, unset_env/3, get_all_env/0,
         get_all_env/1, get_key/1, get_key/2, get_all_key/0, get_all_key/1,
         which_applications/0, which_applications/1, loaded_applications/0,
         get_application/0, get_application/1, start_type/0, info/0]).

-define(BUILTIN, [{kernel, "ERTS  CXC 138 10", "8.5.3"},
                  {stdlib, "ERTS  CXC 138 10", "4.2"}]).

%%% Loading

load(App) -> load(App, []).

load({application, Name, Props}, _Distributed) when is_atom(Name) ->
    do_load(Name, Props);
load(App, _Distributed) when is_atom(App) ->
    case builtin(App) of
        true -> {error, {already_loaded, App}};
        false ->
            case find_spec(App) of
                {ok, Props} -> do_load(App, Props);
                error -> no_such_app(App)
            end
    end.

do_load(App, Props) ->
    case trace_prelude:store_cas({app_loaded, App}, error, Props) of
        true ->
            Env = proplists:get_value(env, Props, []),
            lists:foreach(fun({K, V}) -> put_env(App, K, V) end, Env),
            ok;
        false ->
            {error, {already_loaded, App}}
    end.

%% An application the program does not describe: an OTP one the engine
%% lacks is unsupported; anything else does not exist, as on BEAM.
no_such_app(App) ->
    case lists:member(App, otp_apps()) of
        true ->
            trace_prelude:unsupported(
              io_lib:format("the OTP application ~tw", [App]));
        false ->
            {error, {"no such file or directory", atom_to_list(App) ++ ".app"}}
    end.

otp_apps() ->
    [asn1, common_test, compiler, crypto, debugger, dialyzer, diameter, edoc,
     eldap, erl_docgen, erl_interface, erts, et, eunit, ftp, inets, jinterface,
     megaco, mnesia, observer, odbc, os_mon, parsetools, public_key, reltool,
     runtime_tools, sasl, snmp, ssh, ssl, syntax_tools, tftp, tools, wx,
     xmerl].

find_spec(App) ->
    case [Props || {application, A, Props} <- trace_prelude:app_specs(),
                   A =:= App] of
        [Props | _] -> {ok, Props};
        [] -> error
    end.

builtin(App) -> lists:keymember(App, 1, ?BUILTIN).

unload(App) ->
    case builtin(App) of
        true -> {error, {running, App}};
        false ->
            case loaded(App) of
                error -> {error, {not_loaded, App}};
                {ok, _} ->
                    case started(App) of
                        {ok, _} -> {error, {running, App}};
                        error ->
                            trace_prelude:store_erase({app_loaded, App}),
                            [trace_prelude:store_erase(K)
                             || {{app_env, A, _} = K, _}
                                    <- trace_prelude:store_select(app_env),
                                A =:= App],
                            ok
                    end
            end
    end.

loaded(App) -> trace_prelude:store_get({app_loaded, App}).
started(App) -> trace_prelude:store_get({app_started, App}).

%%% Starting

start(App) -> start(App, temporary).

start(App, Type) when is_atom(App) ->
    case lists:member(Type, [temporary, permanent, transient]) of
        false -> erlang:error(badarg, [App, Type]);
        true -> do_start(App, Type)
    end.

do_start(App, Type) ->
    case builtin(App) of
        true -> {error, {already_started, App}};
        false ->
            case ensure_loaded(App) of
                {ok, Props} -> start_loaded(App, Type, Props);
                Error -> Error
            end
    end.

ensure_loaded(App) ->
    case loaded(App) of
        {ok, Props} -> {ok, Props};
        error ->
            case load(App) of
                ok -> loaded(App);
                {error, {already_loaded, App}} -> loaded(App);
                Error -> Error
            end
    end.

start_loaded(App, Type, Props) ->
    case [D || D <- proplists:get_value(applications, Props, []),
               not builtin(D), started(D) =:= error] of
        [Dep | _] -> {error, {not_started, Dep}};
        [] ->
            case trace_prelude:store_cas({app_started, App}, error,
                                         {starting, Type}) of
                false -> {error, {already_started, App}};
                true -> start_master(App, Type, Props)
            end
    end.

start_master(App, Type, Props) ->
    case proplists:get_value(mod, Props, []) of
        [] ->
            %% A library application: nothing to run.
            trace_prelude:store_put({app_started, App}, {undefined, Type}),
            ok;
        {Mod, StartArgs} ->
            Caller = self(),
            Ref = make_ref(),
            {Master, Mon} = spawn_monitor(fun() ->
                                                  master(Caller, Ref, App,
                                                         Type, Mod, StartArgs)
                                          end),
            receive
                {Ref, Result} ->
                    erlang:demonitor(Mon, [flush]),
                    Result;
                {'DOWN', Mon, process, Master, Reason} ->
                    trace_prelude:store_erase({app_started, App}),
                    {error, {Reason, {Mod, start, [normal, StartArgs]}}}
            end
    end.

%% The application master.
master(Caller, Ref, App, Type, Mod, StartArgs) ->
    group_leader(self(), self()),
    process_flag(trap_exit, true),
    put('$starting', true),
    Started = try Mod:start(normal, StartArgs)
              catch Class:Reason:Stack ->
                      {'EXIT', exit_reason(Class, Reason, Stack)}
              end,
    erase('$starting'),
    case Started of
        {ok, Pid} when is_pid(Pid) ->
            running(Caller, Ref, App, Type, Mod, Pid, []);
        {ok, Pid, State} when is_pid(Pid) ->
            running(Caller, Ref, App, Type, Mod, Pid, State);
        {error, Reason2} ->
            failed(Caller, Ref, App, Type, {Reason2, {Mod, start, [normal, StartArgs]}});
        {'EXIT', Reason2} ->
            failed(Caller, Ref, App, Type, {Reason2, {Mod, start, [normal, StartArgs]}});
        Other ->
            failed(Caller, Ref, App, Type,
                   {bad_return, {{Mod, start, [normal, StartArgs]}, Other}})
    end.

exit_reason(error, Reason, Stack) -> {Reason, Stack};
exit_reason(exit, Reason, _) -> Reason;
exit_reason(throw, Reason, Stack) -> {{nocatch, Reason}, Stack}.

failed(Caller, Ref, App, Type, Reason) ->
    trace_prelude:store_erase({app_started, App}),
    report_exit(App, Reason, Type),
    Caller ! {Ref, {error, Reason}},
    ok.

running(Caller, Ref, App, Type, Mod, Pid, State) ->
    trace_prelude:store_put({app_started, App}, {self(), Type}),
    Caller ! {Ref, ok},
    master_loop(App, Type, Mod, Pid, State).

master_loop(App, Type, Mod, Pid, State) ->
    receive
        {'$stop_application', From, Tag} ->
            State1 = case erlang:function_exported(Mod, prep_stop, 1) of
                         true -> Mod:prep_stop(State);
                         false -> State
                     end,
            exit(Pid, shutdown),
            receive {'EXIT', Pid, _} -> ok end,
            catch Mod:stop(State1),
            trace_prelude:store_erase({app_started, App}),
            report_exit(App, stopped, Type),
            From ! {Tag, ok},
            ok;
        {'EXIT', Pid, Reason} ->
            trace_prelude:store_erase({app_started, App}),
            catch Mod:stop(State),
            report_exit(App, Reason, Type),
            case Type of
                permanent -> node_would_stop(App, Type);
                transient when Reason =/= normal -> node_would_stop(App, Type);
                _ -> ok
            end;
        _ ->
            master_loop(App, Type, Mod, Pid, State)
    end.

node_would_stop(App, Type) ->
    trace_prelude:unsupported(
      io_lib:format("the end of the ~tw application ~tw (OTP stops the node)",
                    [Type, App])).

report_exit(App, Reason, Type) ->
    logger:notice(#{label => {application_controller, exit},
                    report => [{application, App}, {exited, Reason},
                               {type, Type}]},
                  #{domain => [otp],
                    report_cb => fun(#{report := R}, _) -> exit_text(R) end,
                    error_logger => #{tag => info_report}}).

exit_text([{application, App}, {exited, Reason}, {type, Type}]) ->
    io_lib:format("    application: ~tw~n    exited: ~tp~n    type: ~tw",
                  [App, Reason, Type]).

ensure_started(App) -> ensure_started(App, temporary).
ensure_started(App, Type) ->
    case start(App, Type) of
        ok -> ok;
        {error, {already_started, App}} -> ok;
        Error -> Error
    end.

ensure_all_started(App) -> ensure_all_started(App, temporary).

ensure_all_started(App, Type) ->
    case ensure_all(App, Type, []) of
        {ok, Started} -> {ok, lists:reverse(Started)};
        {error, Reason, Started} ->
            [stop(A) || A <- Started],
            {error, Reason}
    end.

ensure_all(App, Type, Started) ->
    case builtin(App) of
        true -> {ok, Started};
        false ->
            case ensure_loaded(App) of
                {ok, Props} ->
                    Deps = proplists:get_value(applications, Props, []),
                    start_deps(Deps, App, Type, Started);
                {error, Reason} ->
                    {error, {App, Reason}, Started}
            end
    end.

start_deps([], App, Type, Started) ->
    case start(App, Type) of
        ok -> {ok, [App | Started]};
        {error, {already_started, App}} -> {ok, Started};
        {error, Reason} -> {error, {App, Reason}, Started}
    end;
start_deps([Dep | Rest], App, Type, Started) ->
    case ensure_all(Dep, Type, Started) of
        {ok, Started1} -> start_deps(Rest, App, Type, Started1);
        Error -> Error
    end.

stop(App) when is_atom(App) ->
    case started(App) of
        {ok, {Master, _Type}} when is_pid(Master) ->
            Tag = make_ref(),
            Mon = erlang:monitor(process, Master),
            Master ! {'$stop_application', self(), Tag},
            receive
                {Tag, Reply} ->
                    erlang:demonitor(Mon, [flush]),
                    Reply;
                {'DOWN', Mon, process, Master, _} ->
                    ok
            end;
        {ok, {undefined, Type}} ->
            trace_prelude:store_erase({app_started, App}),
            report_exit(App, stopped, Type),
            ok;
        _ ->
            {error, {not_started, App}}
    end.

%%% Environment

put_env(App, Key, Val) ->
    trace_prelude:store_put({app_env, App, Key}, Val).

get_env(Key) ->
    case get_application() of
        {ok, App} -> get_env(App, Key);
        undefined -> undefined
    end.

get_env(App, Key) ->
    case trace_prelude:store_get({app_env, App, Key}) of
        {ok, Val} -> {ok, Val};
        error -> undefined
    end.

get_env(App, Key, Default) ->
    case get_env(App, Key) of
        {ok, Val} -> Val;
        undefined -> Default
    end.

get_all_env() ->
    case get_application() of
        {ok, App} -> get_all_env(App);
        undefined -> []
    end.

get_all_env(App) ->
    [{K, V} || {{app_env, A, K}, V} <- trace_prelude:store_select(app_env),
               A =:= App].

set_env(Config) -> set_env(Config, []).

set_env(Config, _Opts) when is_list(Config) ->
    lists:foreach(fun({App, Pairs}) ->
                          [put_env(App, K, V) || {K, V} <- Pairs]
                  end, Config).

set_env(App, Key, Val) -> put_env(App, Key, Val), ok.
set_env(App, Key, Val, _Opts) -> put_env(App, Key, Val), ok.

unset_env(App, Key) -> trace_prelude:store_erase({app_env, App, Key}), ok.
unset_env(App, Key, _Opts) -> unset_env(App, Key).

%%% Keys and lists

get_key(Key) ->
    case get_application() of
        {ok, App} -> get_key(App, Key);
        undefined -> undefined
    end.

get_key(App, Key) ->
    case get_all_key(App) of
        {ok, Keys} ->
            case lists:keyfind(Key, 1, Keys) of
                {Key, Val} -> {ok, Val};
                false -> undefined
            end;
        undefined -> undefined
    end.

get_all_key() ->
    case get_application() of
        {ok, App} -> get_all_key(App);
        undefined -> []
    end.

get_all_key(App) ->
    case builtin(App) of
        true ->
            {App, Desc, Vsn} = lists:keyfind(App, 1, ?BUILTIN),
            {ok, [{description, Desc}, {vsn, Vsn}]};
        false ->
            case loaded(App) of
                {ok, Props} -> {ok, all_keys(App, Props)};
                error -> undefined
            end
    end.

all_keys(App, Props) ->
    Get = fun(K, D) -> proplists:get_value(K, Props, D) end,
    [{description, Get(description, "")}, {id, Get(id, "")},
     {vsn, Get(vsn, "")}, {modules, Get(modules, [])},
     {maxP, Get(maxP, infinity)}, {maxT, Get(maxT, infinity)},
     {registered, Get(registered, [])},
     {included_applications, Get(included_applications, [])},
     {optional_applications, Get(optional_applications, [])},
     {applications, Get(applications, [])},
     {env, get_all_env(App)}, {mod, Get(mod, [])},
     {start_phases, Get(start_phases, undefined)}].

which_applications() ->
    Started = [{App, description(App), vsn(App)}
               || {{app_started, App}, {Master, _}}
                      <- trace_prelude:store_select(app_started),
                  Master =/= starting],
    lists:reverse(Started) ++ lists:reverse(?BUILTIN).

which_applications(_Timeout) -> which_applications().

loaded_applications() ->
    ?BUILTIN ++ [{App, proplists:get_value(description, Props, ""),
                  proplists:get_value(vsn, Props, "")}
                 || {{app_loaded, App}, Props}
                        <- trace_prelude:store_select(app_loaded)].

description(App) ->
    {ok, Props} = loaded(App),
    proplists:get_value(description, Props, "").

vsn(App) ->
    {ok, Props} = loaded(App),
    proplists:get_value(vsn, Props, "").

%% The application of a process: the one whose master is its group leader.
get_application() -> app_of_leader(group_leader()).

get_application(Pid) when is_pid(Pid) ->
    case process_info(Pid, group_leader) of
        {group_leader, GL} -> app_of_leader(GL);
        undefined -> undefined
    end;
get_application(Module) when is_atom(Module) ->
    case [App || {{app_loaded, App}, Props}
                     <- trace_prelude:store_select(app_loaded),
                 lists:member(Module, proplists:get_value(modules, Props, []))] of
        [App | _] -> {ok, App};
        [] -> undefined
    end.

app_of_leader(GL) ->
    case [App || {{app_started, App}, {Master, _}}
                     <- trace_prelude:store_select(app_started),
                 Master =:= GL] of
        [App | _] -> {ok, App};
        [] -> undefined
    end.

start_type() ->
    case get('$starting') of
        true -> normal;
        _ -> undefined
    end.

info() ->
    [{loaded, loaded_applications()}, {running, which_applications()}].
